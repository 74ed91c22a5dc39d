package cli

import (
	"encoding/hex"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/internal/atomicfile"
)

// proofOut is where a proving command writes its proof: a file written
// atomically and opened before the proving starts (so that an --out that
// cannot be written fails at once, not after minutes of work), or stdout for
// "-".
type proofOut struct {
	path   string
	f      *atomicfile.File // nil for stdout
	stdout io.Writer
	stderr io.Writer
}

// openProofOut opens --out; the caller aborts it if it does not write.
func openProofOut(c *ucli.Context, path string) (*proofOut, error) {
	o := &proofOut{path: path, stdout: c.App.Writer, stderr: c.App.ErrWriter}
	if path == "-" {
		return o, nil
	}
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--out: %w (checked before proving)", err)
	}
	o.f = f
	return o, nil
}

// summary is where the command's JSON summary goes: stdout, unless the proof
// does.
func (o *proofOut) summary() io.Writer {
	if o.f == nil {
		return o.stderr
	}
	return o.stdout
}

// write writes the proof (hex text with asHex) and commits the file. Where the
// write fails (a full disk), the proof is printed in hex on stderr, so that
// the work is not lost.
func (o *proofOut) write(proof []byte, asHex bool) error {
	b := proof
	if asHex {
		b = []byte(hex.EncodeToString(proof) + "\n")
	}
	if o.f == nil {
		_, err := o.stdout.Write(b)
		return err
	}
	_, err := o.f.Write(b)
	if err == nil {
		err = o.f.Commit()
	} else {
		o.f.Abort()
	}
	if err != nil {
		fmt.Fprintf(o.stderr, "the proof was not written to %s; here it is in hex, so that it is not lost:\n%s\n", o.path, hex.EncodeToString(proof))
		return fmt.Errorf("writing the proof: %w", err)
	}
	return nil
}

// abort drops an output never written (a failed proof): nothing is left.
func (o *proofOut) abort() {
	if o.f != nil {
		o.f.Abort()
	}
}
