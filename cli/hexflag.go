package cli

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/ipfs/go-cid"
	ucli "github.com/urfave/cli/v2"

	"github.com/filc2/filc2/proofs/abi"
)

// usageError wraps err as exit status 2, the status of a command line that
// cannot be run.
func usageError(err error) error { return &ExitError{Code: 2, Err: err} }

// usageErrorf is usageError of a formatted message.
func usageErrorf(format string, args ...any) error { return usageError(fmt.Errorf(format, args...)) }

// onUsageError makes flag-parsing errors exit with status 2.
func onUsageError(c *ucli.Context, err error, _ bool) error {
	return usageErrorf("%v (see %s --help)", err, c.Command.HelpName)
}

// decodeHex decodes s, which may start with 0x, ignoring surrounding space.
func decodeHex(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	return hex.DecodeString(s)
}

// parseHex32 parses flag's value as exactly 32 bytes of hex.
func parseHex32(flag, s string) ([32]byte, error) {
	var out [32]byte
	b, err := decodeHex(s)
	if err != nil || len(b) != 32 {
		return out, fmt.Errorf("--%s %q: want 64 hex digits (32 bytes)", flag, s)
	}
	copy(out[:], b)
	return out, nil
}

// commitment says which kind of commitment a CID must hold.
type commitment int

const (
	commR commitment = iota // sealed: FilCommitmentSealed, poseidon-bls12_381-a2-fc1
	commD                   // unsealed: FilCommitmentUnsealed, sha2-256-trunc254-padded
)

// parseCommitment parses a comm_r or comm_d given as 64 hex digits (the
// 32-byte little-endian value) or as a CID (bagboea4b… for comm_r, baga6ea4s…
// for comm_d), as lotus prints them.
func parseCommitment(flag, s string, kind commitment) ([32]byte, error) {
	var out [32]byte
	if b, err := decodeHex(s); err == nil {
		if len(b) != 32 {
			return out, fmt.Errorf("--%s: %d bytes of hex, want 32 (64 hex digits) or a CID", flag, len(b))
		}
		copy(out[:], b)
		return out, nil
	}
	c, err := cid.Decode(strings.TrimSpace(s))
	if err != nil {
		return out, fmt.Errorf("--%s %q: neither 64 hex digits nor a CID: %v", flag, s, err)
	}
	var b []byte
	if kind == commR {
		b, err = commcid.CIDToReplicaCommitmentV1(c)
	} else {
		b, err = commcid.CIDToDataCommitmentV1(c)
	}
	if err != nil {
		want := "a sealed-sector CID (bagboea4b…)"
		if kind == commD {
			want = "an unsealed-sector CID (baga6ea4s…)"
		}
		return out, fmt.Errorf("--%s %s: %v: want %s", flag, s, err, want)
	}
	if len(b) != 32 {
		return out, fmt.Errorf("--%s %s: a %d-byte commitment, want 32", flag, s, len(b))
	}
	copy(out[:], b)
	return out, nil
}

// readBytesArg returns the bytes of a HEX|@FILE argument: hex given inline,
// or read from FILE ("@-" for stdin), which may hold hex or raw bytes.
func readBytesArg(flag, s string) ([]byte, error) {
	name, isFile := strings.CutPrefix(s, "@")
	if !isFile {
		b, err := decodeHex(s)
		if err != nil {
			return nil, fmt.Errorf("--%s: not hex (%v); pass hex digits or @FILE", flag, err)
		}
		return b, nil
	}
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("--%s: %v", flag, err)
	}
	if t := bytes.TrimSpace(data); len(t) > 0 {
		if b, err := decodeHex(string(t)); err == nil {
			return b, nil
		}
	}
	return data, nil
}

// parseMinerID parses a miner actor id: N, or an ID address f0N / t0N.
func parseMinerID(s string) (uint64, error) {
	t := s
	if len(t) > 2 && (t[0] == 'f' || t[0] == 't') && t[1] == '0' {
		t = t[2:]
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--miner-id %q: want the miner actor id, such as 1000 or f01000", s)
	}
	return n, nil
}

// parseProverID parses a prover id in hex: 32 bytes, or fewer (an ID
// address payload), which are left-aligned in 32 zero bytes as
// filecoin-ffi does.
func parseProverID(s string) ([32]byte, error) {
	var out [32]byte
	b, err := decodeHex(s)
	if err != nil || len(b) == 0 || len(b) > 32 {
		return out, fmt.Errorf("--prover-id %q: want 1 to 32 bytes of hex (the LEB128 miner id, zero-padded on the right to 32 bytes)", s)
	}
	copy(out[:], b)
	return out, nil
}

// parseSectorSize parses a sector size in bytes or as 2KiB, 8MiB, 512MiB,
// 32GiB or 64GiB.
func parseSectorSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	mul := uint64(1)
	for _, u := range []struct {
		suffix string
		mul    uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mul = v, u.mul
			break
		}
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n == 0 || n > (1<<63)/mul {
		return 0, fmt.Errorf("--sector-size %q: want 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or a size in bytes", s)
	}
	return n * mul, nil
}

// parseAPIVersion parses a proofs-API version: 1.0.0, 1.1.0 or 1.2.0.
func parseAPIVersion(s string) (abi.APIVersion, error) {
	for _, v := range []abi.APIVersion{abi.APIVersion1_0_0, abi.APIVersion1_1_0, abi.APIVersion1_2_0} {
		if s == v.String() {
			return v, nil
		}
	}
	return 0, fmt.Errorf("--api-version %q: want 1.0.0, 1.1.0 or 1.2.0", s)
}

// parseChallengeKind parses interactive, synthetic or non-interactive.
func parseChallengeKind(s string) (abi.ChallengeKind, error) {
	switch strings.ToLower(s) {
	case "interactive":
		return abi.Interactive, nil
	case "synthetic":
		return abi.Synthetic, nil
	case "non-interactive", "noninteractive", "ni":
		return abi.NonInteractive, nil
	}
	return 0, fmt.Errorf("--challenges %q: want interactive, synthetic or non-interactive", s)
}
