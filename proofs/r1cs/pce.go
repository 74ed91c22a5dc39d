package r1cs

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/internal/atomicfile"
)

// The PCE file (pre-compiled circuit) holds a recorded Circuit:
//
//	header   magic "FILC2PCE", u32 version, u32 flags (0),
//	         u64 num_inputs, num_aux, num_constraints, num_coeffs, nnz_A, nnz_B, nnz_C
//	coeffs   num_coeffs × 32 bytes, canonical little-endian
//	A, B, C  row_ptr (num_constraints+1) × u32, col nnz × u32, val nnz × u32
//	density  a_aux, b_input, b_aux as u64 words, LSB first
//	trailer  u32 CRC-32C of everything before it
//
// All integers are little-endian.
const (
	pceMagic   = "FILC2PCE"
	pceVersion = 1
	pceHeader  = 8 + 4 + 4 + 7*8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WritePCE writes c to path atomically.
func WritePCE(path string, c *Circuit) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}

// WriteTo writes c in the PCE format.
func (c *Circuit) WriteTo(w io.Writer) (int64, error) {
	cw := &crcWriter{w: w}
	h := make([]byte, 0, pceHeader)
	h = append(h, pceMagic...)
	h = binary.LittleEndian.AppendUint32(h, pceVersion)
	h = binary.LittleEndian.AppendUint32(h, 0)
	for _, v := range []int{c.NumInputs, c.NumAux, c.NumConstraints, len(c.Coeffs), c.A.NNZ(), c.B.NNZ(), c.C.NNZ()} {
		h = binary.LittleEndian.AppendUint64(h, uint64(v))
	}
	cw.Write(h)
	var le [32]byte
	for i := range c.Coeffs {
		fr.LittleEndian.PutElement(&le, c.Coeffs[i])
		cw.Write(le[:])
	}
	for _, m := range c.Matrices() {
		cw.Write(u32Bytes(m.RowPtr))
		cw.Write(u32Bytes(m.Col))
		cw.Write(u32Bytes(m.Val))
	}
	for _, b := range []*Bitset{&c.AAux, &c.BInput, &c.BAux} {
		cw.Write(u64Bytes(b.words))
	}
	var t [4]byte
	binary.LittleEndian.PutUint32(t[:], cw.crc)
	if cw.err == nil {
		_, cw.err = w.Write(t[:])
		cw.n += 4
	}
	return cw.n, cw.err
}

// MarshalBinary returns c in the PCE format, as WriteTo writes it.
func (c *Circuit) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ReadPCE reads a PCE file written by WritePCE, checking its shape and checksum.
func ReadPCE(path string) (*Circuit, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	c, err := readPCE(bufio.NewReaderSize(f, 1<<20), st.Size())
	if err != nil {
		return nil, fmt.Errorf("pce %s: %w", path, err)
	}
	return c, nil
}

func readPCE(r io.Reader, size int64) (*Circuit, error) {
	cr := &crcReader{r: r}
	h := make([]byte, pceHeader)
	if _, err := io.ReadFull(cr, h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if string(h[:8]) != pceMagic {
		return nil, errors.New("not a filc2 PCE file (bad magic)")
	}
	if v := binary.LittleEndian.Uint32(h[8:]); v != pceVersion {
		return nil, fmt.Errorf("PCE version %d, this filc2 reads version %d: record the circuit again", v, pceVersion)
	}
	var n [7]uint64
	for i := range n {
		n[i] = binary.LittleEndian.Uint64(h[16+8*i:])
	}
	ni, na, nc, ncoef := n[0], n[1], n[2], n[3]
	if ni == 0 || ni+na >= auxFlag || nc >= 1<<32 || ncoef >= 1<<32 || n[4] >= 1<<32 || n[5] >= 1<<32 || n[6] >= 1<<32 {
		return nil, fmt.Errorf("header counts out of range: %v", n)
	}
	want := uint64(pceHeader) + 32*ncoef + 3*4*(nc+1) + 8*(n[4]+n[5]+n[6]) +
		8*(2*((na+63)/64)+(ni+63)/64) + 4
	if uint64(size) != want {
		return nil, fmt.Errorf("file is %d bytes, its header describes %d: truncated or corrupt", size, want)
	}
	c := &Circuit{NumInputs: int(ni), NumAux: int(na), NumConstraints: int(nc)}
	c.Coeffs = make([]fr.Element, ncoef)
	var le [32]byte
	for i := range c.Coeffs {
		if _, err := io.ReadFull(cr, le[:]); err != nil {
			return nil, fmt.Errorf("coefficients: %w", err)
		}
		e, err := fr.LittleEndian.Element(&le)
		if err != nil {
			return nil, fmt.Errorf("coefficient %d: %w", i, err)
		}
		c.Coeffs[i] = e
	}
	for k, m := range c.Matrices() {
		m.RowPtr = make([]uint32, nc+1)
		m.Col = make([]uint32, n[4+k])
		m.Val = make([]uint32, n[4+k])
		for _, s := range [][]uint32{m.RowPtr, m.Col, m.Val} {
			if _, err := io.ReadFull(cr, u32Bytes(s)); err != nil {
				return nil, fmt.Errorf("matrix %c: %w", "ABC"[k], err)
			}
		}
		if err := c.checkMatrix(m); err != nil {
			return nil, fmt.Errorf("matrix %c: %w", "ABC"[k], err)
		}
	}
	c.AAux, c.BInput, c.BAux = NewBitset(int(na)), NewBitset(int(ni)), NewBitset(int(na))
	for _, b := range []*Bitset{&c.AAux, &c.BInput, &c.BAux} {
		if _, err := io.ReadFull(cr, u64Bytes(b.words)); err != nil {
			return nil, fmt.Errorf("densities: %w", err)
		}
	}
	sum := cr.crc
	var t [4]byte
	if _, err := io.ReadFull(r, t[:]); err != nil {
		return nil, fmt.Errorf("trailer: %w", err)
	}
	if binary.LittleEndian.Uint32(t[:]) != sum {
		return nil, errors.New("checksum mismatch: the file is corrupt; record the circuit again")
	}
	return c, nil
}

func (c *Circuit) checkMatrix(m *Matrix) error {
	if m.RowPtr[0] != 0 || int(m.RowPtr[c.NumConstraints]) != len(m.Col) {
		return errors.New("row pointers do not span the entries")
	}
	for i := 1; i < len(m.RowPtr); i++ {
		if m.RowPtr[i] < m.RowPtr[i-1] {
			return fmt.Errorf("row pointer %d decreases", i)
		}
	}
	nv := uint32(c.NumInputs + c.NumAux)
	for i := range m.Col {
		if m.Col[i] >= nv || m.Val[i] >= uint32(len(c.Coeffs)) {
			return fmt.Errorf("entry %d out of range", i)
		}
	}
	return nil
}

func u32Bytes(s []uint32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s))
}

func u64Bytes(s []uint64) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 8*len(s))
}

type crcWriter struct {
	w   io.Writer
	crc uint32
	n   int64
	err error
}

func (c *crcWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	c.n += int64(n)
	c.err = err
	return n, err
}

type crcReader struct {
	r   io.Reader
	crc uint32
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	return n, err
}

// LoadPCE reads the recorded circuit at path, recording it with record and
// writing it there first when the file does not exist. A circuit read from a
// file has its counts checked against count (a count-mode synthesis), so a
// PCE file from another filc2 is refused.
func LoadPCE(path string, record func() (*Circuit, error), count func() (Stats, error)) (*Circuit, error) {
	c, err := ReadPCE(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if c, err = record(); err != nil {
			return nil, err
		}
		if err := WritePCE(path, c); err != nil {
			return nil, err
		}
		return c, nil // this filc2's own synthesis: nothing to check it against
	case err != nil:
		return nil, fmt.Errorf("%w (delete it to record the circuit again)", err)
	}
	want, err := count()
	if err != nil {
		return nil, err
	}
	if got := c.Stats(); got != want {
		return nil, fmt.Errorf("pce %s: circuit %+v, this filc2 synthesises %+v: delete the file to record it again", path, got, want)
	}
	return c, nil
}
