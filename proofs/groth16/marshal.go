package groth16

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/filc2/filc2/internal/atomicfile"
)

// ProofSize is the length of one encoded proof: A (48) ‖ B (96) ‖ C (48), compressed.
const ProofSize = 2*G1Compressed + G2Compressed

// vkFixed is the size of the vk's six fixed points.
const vkFixed = 3*G1Uncompressed + 3*G2Uncompressed

// Query names one of the proving key's five point arrays, in file order.
type Query int

// The queries of a .params file, in file order.
const (
	QueryH Query = iota
	QueryL
	QueryA
	QueryBG1
	QueryBG2
)

func (q Query) String() string {
	if q >= 0 && int(q) < len(sectionNames) {
		return sectionNames[q]
	}
	return fmt.Sprintf("Query(%d)", int(q))
}

func (q Query) pointSize() int64 {
	if q == QueryBG2 {
		return G2Uncompressed
	}
	return G1Uncompressed
}

// FormatError reports a malformed or unexpected .params/.vk/proof encoding.
type FormatError struct {
	File    string // path, or "" for in-memory bytes
	Section string // vk, ic, h, l, a, b_g1, b_g2, proof
	Offset  int64  // byte offset of the bad field
	Err     error
}

func (e *FormatError) Error() string {
	where := e.File
	if where == "" {
		where = "<bytes>"
	}
	return fmt.Sprintf("%s: section %s at offset %d: %v", where, e.Section, e.Offset, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Bytes returns the proof's 192-byte encoding.
func (p *Proof) Bytes() [ProofSize]byte {
	var out [ProofSize]byte
	a, b, c := p.A.Bytes(), p.B.Bytes(), p.C.Bytes()
	copy(out[:], a[:])
	copy(out[G1Compressed:], b[:])
	copy(out[G1Compressed+G2Compressed:], c[:])
	return out
}

// SetBytes decodes a 192-byte proof strictly: compressed flags, canonical
// coordinates on the curve and in the subgroup, no point at infinity.
func (p *Proof) SetBytes(b []byte) error {
	if len(b) != ProofSize {
		return &FormatError{Section: "proof", Err: fmt.Errorf("proof is %d bytes, want %d", len(b), ProofSize)}
	}
	if err := decodeG1Compressed(&p.A, b); err != nil {
		return &FormatError{Section: "proof.a", Err: err}
	}
	if err := decodeG2Compressed(&p.B, b[G1Compressed:]); err != nil {
		return &FormatError{Section: "proof.b", Offset: G1Compressed, Err: err}
	}
	if err := decodeG1Compressed(&p.C, b[G1Compressed+G2Compressed:]); err != nil {
		return &FormatError{Section: "proof.c", Offset: G1Compressed + G2Compressed, Err: err}
	}
	return nil
}

// EncodeProofs concatenates the proofs' encodings, as a multi-partition proof on chain.
func EncodeProofs(proofs []Proof) []byte {
	out := make([]byte, 0, len(proofs)*ProofSize)
	for i := range proofs {
		b := proofs[i].Bytes()
		out = append(out, b[:]...)
	}
	return out
}

// DecodeProofs decodes exactly n concatenated proofs.
func DecodeProofs(b []byte, n int) ([]Proof, error) {
	if len(b) != n*ProofSize {
		return nil, &FormatError{Section: "proof", Err: fmt.Errorf("%d bytes, want %d for %d proofs of %d bytes", len(b), n*ProofSize, n, ProofSize)}
	}
	proofs := make([]Proof, n)
	for i := range proofs {
		if err := proofs[i].SetBytes(b[i*ProofSize : (i+1)*ProofSize]); err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				fe.Section = fmt.Sprintf("proof %d: %s", i, fe.Section)
				fe.Offset += int64(i * ProofSize)
			}
			return nil, err
		}
	}
	return proofs, nil
}

// WriteTo writes the verifying key in bellperson's format.
func (vk *VerifyingKey) WriteTo(w io.Writer) (int64, error) {
	ew := &errWriter{w: w}
	ew.g1(&vk.AlphaG1)
	ew.g1(&vk.BetaG1)
	ew.g2(&vk.BetaG2)
	ew.g2(&vk.GammaG2)
	ew.g1(&vk.DeltaG1)
	ew.g2(&vk.DeltaG2)
	ew.u32(len(vk.IC))
	for i := range vk.IC {
		ew.g1(&vk.IC[i])
	}
	return ew.n, ew.err
}

// WriteTo writes the proving key in bellperson's .params format.
func (pk *ProvingKey) WriteTo(w io.Writer) (int64, error) {
	n, err := pk.VK.WriteTo(w)
	if err != nil {
		return n, err
	}
	ew := &errWriter{w: w, n: n}
	for _, q := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		ew.u32(len(q))
		for i := range q {
			ew.g1(&q[i])
		}
	}
	ew.u32(len(pk.BG2))
	for i := range pk.BG2 {
		ew.g2(&pk.BG2[i])
	}
	return ew.n, ew.err
}

// WriteParamsFile writes pk to path atomically.
func WriteParamsFile(path string, pk *ProvingKey) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { _, err := pk.WriteTo(w); return err })
}

// WriteVerifyingKeyFile writes vk to path atomically.
func WriteVerifyingKeyFile(path string, vk *VerifyingKey) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { _, err := vk.WriteTo(w); return err })
}

type errWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (e *errWriter) write(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += int64(n)
	e.err = err
}

func (e *errWriter) u32(v int) {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(v))
	e.write(b[:])
}

func (e *errWriter) g1(p *bls.G1Affine) {
	if p.IsInfinity() && e.err == nil {
		e.err = errors.New("groth16: refusing to encode a point at infinity in a key")
	}
	b := p.RawBytes()
	e.write(b[:])
}

func (e *errWriter) g2(p *bls.G2Affine) {
	if p.IsInfinity() && e.err == nil {
		e.err = errors.New("groth16: refusing to encode a point at infinity in a key")
	}
	b := p.RawBytes()
	e.write(b[:])
}

// ReadOption configures the .vk and .params readers.
type ReadOption func(*readConfig)

type readConfig struct{ subgroup bool }

// WithSubgroupChecks makes the readers check that every point lies in the
// prime-order subgroup (slow over a large key); points are always checked to be
// on the curve.
func WithSubgroupChecks() ReadOption { return func(c *readConfig) { c.subgroup = true } }

func readOptions(opts []ReadOption) readConfig {
	var c readConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// ReadVerifyingKey reads a bellperson verifying key. With numInputs > 0 the IC
// length must equal it.
func ReadVerifyingKey(r io.Reader, numInputs int, opts ...ReadOption) (*VerifyingKey, error) {
	vk, _, err := readVK(bufio.NewReader(r), "", numInputs, -1, readOptions(opts))
	return vk, err
}

// ReadVerifyingKeyFile reads the .vk at path; numInputs as for ReadVerifyingKey.
// The file must end after the key.
func ReadVerifyingKeyFile(path string, numInputs int, opts ...ReadOption) (*VerifyingKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	vk, n, err := readVK(bufio.NewReader(f), path, numInputs, st.Size(), readOptions(opts))
	if err != nil {
		return nil, err
	}
	if n != st.Size() {
		return nil, &FormatError{File: path, Section: "vk", Offset: n, Err: fmt.Errorf("%d trailing bytes after the key", st.Size()-n)}
	}
	return vk, nil
}

// readVK reads a vk from r; size, when ≥ 0, bounds the IC count before reading.
func readVK(r io.Reader, file string, numInputs int, size int64, cfg readConfig) (*VerifyingKey, int64, error) {
	buf := make([]byte, vkFixed+4)
	if n, err := io.ReadFull(r, buf); err != nil {
		return nil, int64(n), &FormatError{File: file, Section: "vk", Offset: int64(n), Err: truncated(err)}
	}
	vk := &VerifyingKey{}
	off := 0
	type field struct {
		name string
		g1   *bls.G1Affine
		g2   *bls.G2Affine
	}
	for _, f := range []field{
		{"vk.alpha_g1", &vk.AlphaG1, nil}, {"vk.beta_g1", &vk.BetaG1, nil}, {"vk.beta_g2", nil, &vk.BetaG2},
		{"vk.gamma_g2", nil, &vk.GammaG2}, {"vk.delta_g1", &vk.DeltaG1, nil}, {"vk.delta_g2", nil, &vk.DeltaG2},
	} {
		var err error
		at := off
		if f.g1 != nil {
			err = decodeG1Any(f.g1, buf[off:], cfg.subgroup)
			off += G1Uncompressed
		} else {
			err = decodeG2Any(f.g2, buf[off:], cfg.subgroup)
			off += G2Uncompressed
		}
		if err != nil {
			return nil, 0, &FormatError{File: file, Section: f.name, Offset: int64(at), Err: err}
		}
	}
	nIC := int(binary.BigEndian.Uint32(buf[vkFixed:]))
	pos := int64(vkFixed + 4)
	if numInputs > 0 && nIC != numInputs {
		return nil, pos, &FormatError{File: file, Section: "vk.ic", Offset: vkFixed,
			Err: fmt.Errorf("%d IC points, the circuit has %d inputs: this key is for another circuit", nIC, numInputs)}
	}
	if size >= 0 && pos+int64(nIC)*G1Uncompressed > size {
		return nil, pos, &FormatError{File: file, Section: "vk.ic", Offset: vkFixed,
			Err: fmt.Errorf("%d IC points need %d bytes, the file has %d: truncated", nIC, pos+int64(nIC)*G1Uncompressed, size)}
	}
	vk.IC = make([]bls.G1Affine, nIC)
	p := make([]byte, G1Uncompressed)
	for i := range vk.IC {
		if _, err := io.ReadFull(r, p); err != nil {
			return nil, pos, &FormatError{File: file, Section: "vk.ic", Offset: pos, Err: truncated(err)}
		}
		if err := decodeG1(&vk.IC[i], p, cfg.subgroup); err != nil {
			return nil, pos, &FormatError{File: file, Section: fmt.Sprintf("vk.ic[%d]", i), Offset: pos, Err: err}
		}
		pos += G1Uncompressed
	}
	return vk, pos, nil
}

func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("unexpected end of file: the file is truncated")
	}
	return err
}

// ParamsFile is an open bellperson .params file. The verifying key is decoded;
// the queries stay on disk and are read on demand, so a 47 GB file costs no
// heap until its points are asked for.
type ParamsFile struct {
	VK       *VerifyingKey
	path     string
	f        *os.File
	sections [5]struct {
		off int64 // first point
		n   int
	}
	cfg readConfig
}

// OpenParams opens a .params file and checks every section length against the
// circuit's shape and the file's size.
func OpenParams(path string, want Shape, opts ...ReadOption) (*ParamsFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	p, err := openParams(f, path, want, readOptions(opts))
	if err != nil {
		f.Close()
		return nil, err
	}
	return p, nil
}

func openParams(f *os.File, path string, want Shape, cfg readConfig) (*ParamsFile, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	vk, pos, err := readVK(bufio.NewReader(io.NewSectionReader(f, 0, size)), path, want.NumInputs, size, cfg)
	if err != nil {
		return nil, err
	}
	p := &ParamsFile{VK: vk, path: path, f: f, cfg: cfg}
	lengths := want.Lengths()
	var lb [4]byte
	for q := QueryH; q <= QueryBG2; q++ {
		if _, err := f.ReadAt(lb[:], pos); err != nil {
			return nil, &FormatError{File: path, Section: q.String(), Offset: pos, Err: truncated(err)}
		}
		n := int(binary.BigEndian.Uint32(lb[:]))
		if n != lengths[q] {
			return nil, &FormatError{File: path, Section: q.String(), Offset: pos,
				Err: fmt.Errorf("%d points, the circuit needs %d: this file is for another circuit", n, lengths[q])}
		}
		pos += 4
		end := pos + int64(n)*q.pointSize()
		if end > size {
			return nil, &FormatError{File: path, Section: q.String(), Offset: pos,
				Err: fmt.Errorf("%d points need bytes up to %d, the file has %d: truncated", n, end, size)}
		}
		p.sections[q].off, p.sections[q].n = pos, n
		pos = end
	}
	if pos != size {
		return nil, &FormatError{File: path, Section: "end", Offset: pos, Err: fmt.Errorf("%d trailing bytes", size-pos)}
	}
	return p, nil
}

// Close closes the file.
func (p *ParamsFile) Close() error { return p.f.Close() }

// Path is the file's path.
func (p *ParamsFile) Path() string { return p.path }

// Section returns the byte offset of q's first point and its point count, for
// callers that stream raw points (e.g. to a GPU).
func (p *ParamsFile) Section(q Query) (offset int64, count int) {
	return p.sections[q].off, p.sections[q].n
}

// ReaderAt gives raw access to the file.
func (p *ParamsFile) ReaderAt() io.ReaderAt { return p.f }

// ReadG1 decodes points [start, start+len(dst)) of a G1 query into dst.
func (p *ParamsFile) ReadG1(ctx context.Context, q Query, start int, dst []bls.G1Affine) error {
	if q == QueryBG2 {
		return fmt.Errorf("groth16: %v is a G2 query", q)
	}
	return p.read(ctx, q, start, len(dst), func(i int, b []byte) error { return decodeG1(&dst[i], b, p.cfg.subgroup) })
}

// ReadG2 decodes points [start, start+len(dst)) of b_g2 into dst.
func (p *ParamsFile) ReadG2(ctx context.Context, start int, dst []bls.G2Affine) error {
	return p.read(ctx, QueryBG2, start, len(dst), func(i int, b []byte) error { return decodeG2(&dst[i], b, p.cfg.subgroup) })
}

// read decodes n points from start in parallel chunks read with ReadAt.
func (p *ParamsFile) read(ctx context.Context, q Query, start, n int, decode func(i int, b []byte) error) error {
	s := p.sections[q]
	if start < 0 || n < 0 || start+n > s.n {
		return fmt.Errorf("groth16: %s points [%d, %d) outside [0, %d)", q, start, start+n, s.n)
	}
	ps := q.pointSize()
	const chunk = 1 << 14
	workers := runtime.GOMAXPROCS(0)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  int
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, chunk*ps)
			for {
				mu.Lock()
				lo := next
				next += chunk
				stop := first != nil
				mu.Unlock()
				if stop || lo >= n || ctx.Err() != nil {
					return
				}
				hi := min(lo+chunk, n)
				off := s.off + int64(start+lo)*ps
				b := buf[:int64(hi-lo)*ps]
				if _, err := p.f.ReadAt(b, off); err != nil {
					fail(&FormatError{File: p.path, Section: q.String(), Offset: off, Err: truncated(err)})
					return
				}
				for i := lo; i < hi; i++ {
					if err := decode(i, b[int64(i-lo)*ps:]); err != nil {
						fail(&FormatError{File: p.path, Section: fmt.Sprintf("%s[%d]", q, start+i), Offset: off + int64(i-lo)*ps, Err: err})
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// ProvingKey decodes the whole key into memory (for circuits whose key fits).
func (p *ParamsFile) ProvingKey(ctx context.Context) (*ProvingKey, error) {
	pk := &ProvingKey{VK: *p.VK}
	dsts := []*[]bls.G1Affine{&pk.H, &pk.L, &pk.A, &pk.BG1}
	for q, d := range dsts {
		*d = make([]bls.G1Affine, p.sections[q].n)
		if err := p.ReadG1(ctx, Query(q), 0, *d); err != nil {
			return nil, err
		}
	}
	pk.BG2 = make([]bls.G2Affine, p.sections[QueryBG2].n)
	if err := p.ReadG2(ctx, 0, pk.BG2); err != nil {
		return nil, err
	}
	return pk, nil
}

// ReadParamsFile opens, checks and decodes a whole .params file.
func ReadParamsFile(ctx context.Context, path string, want Shape, opts ...ReadOption) (*ProvingKey, error) {
	p, err := OpenParams(path, want, opts...)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.ProvingKey(ctx)
}
