package r1cs

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// DefaultChunk is the chunk size of the reference digests (2^18 constraints).
const DefaultChunk = 1 << 18

// Digest is the canonical R1CS digest of spec §2.5, with the digests of each run
// of Chunk constraints (serialised the same way, without header) to locate a
// difference.
type Digest struct {
	Sum    [32]byte
	Chunk  int
	Chunks [][32]byte
}

// Hex returns Sum in hex.
func (d Digest) Hex() string { return hex.EncodeToString(d.Sum[:]) }

// digester streams the canonical serialisation into SHA-256.
type digester struct {
	want   Header
	total  hash.Hash
	chunk  hash.Hash
	size   int
	n      int
	chunks [][32]byte
	buf    []byte
	closed bool
	sum    [32]byte
}

func newDigester(want Header, chunkSize int) *digester {
	if chunkSize <= 0 {
		chunkSize = DefaultChunk
	}
	d := &digester{want: want, total: sha256.New(), chunk: sha256.New(), size: chunkSize}
	d.total.Write(appendHeader(nil, want))
	return d
}

func appendHeader(b []byte, h Header) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(h.NumInputs))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.NumAux))
	return binary.LittleEndian.AppendUint64(b, uint64(h.NumConstraints))
}

// appendTerm serialises one canonical term: kind (0 input, 1 aux), index, coefficient.
func appendTerm(b []byte, aux bool, idx uint32, c *fr.Element) []byte {
	kind := byte(0)
	if aux {
		kind = 1
	}
	b = append(b, kind)
	b = binary.LittleEndian.AppendUint32(b, idx)
	var le [32]byte
	fr.LittleEndian.PutElement(&le, *c)
	return append(b, le[:]...)
}

func (d *digester) constraint(a, b, c LC) {
	buf := d.buf[:0]
	for _, lc := range [3]LC{a, b, c} {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(lc)))
		for i := range lc {
			buf = appendTerm(buf, lc[i].Var.IsAux(), uint32(lc[i].Var.Index()), &lc[i].Coeff)
		}
	}
	d.write(buf)
	d.buf = buf
}

func (d *digester) write(rec []byte) {
	d.total.Write(rec)
	d.chunk.Write(rec)
	d.n++
	if d.n%d.size == 0 {
		d.closeChunk()
	}
}

func (d *digester) closeChunk() {
	var s [32]byte
	d.chunk.Sum(s[:0])
	d.chunks = append(d.chunks, s)
	d.chunk.Reset()
}

func (d *digester) finish(got Header) error {
	if got != d.want {
		return fmt.Errorf("r1cs: digest header announced %+v, circuit has %+v", d.want, got)
	}
	return nil
}

func (d *digester) result() Digest {
	if !d.closed {
		if d.n%d.size != 0 {
			d.closeChunk()
		}
		d.total.Sum(d.sum[:0])
		d.closed = true
	}
	return Digest{Sum: d.sum, Chunk: d.size, Chunks: d.chunks}
}

// Digest computes the canonical digest of the recorded circuit.
func (c *Circuit) Digest(chunkSize int) Digest {
	d := newDigester(c.Header(), chunkSize)
	ni := uint32(c.NumInputs)
	var buf []byte
	for row := 0; row < c.NumConstraints; row++ {
		buf = buf[:0]
		for _, m := range c.Matrices() {
			cols, vals := m.Row(row)
			buf = binary.LittleEndian.AppendUint32(buf, uint32(len(cols)))
			for i, col := range cols {
				if col < ni {
					buf = appendTerm(buf, false, col, &c.Coeffs[vals[i]])
				} else {
					buf = appendTerm(buf, true, col-ni, &c.Coeffs[vals[i]])
				}
			}
		}
		d.write(buf)
	}
	return d.result()
}
