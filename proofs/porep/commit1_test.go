package porep

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/r1cs"
)

func sealFor(t *testing.T, name string, data []byte) *Sector {
	t.Helper()
	p, err := abi.ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	var ticket [32]byte
	ticket[0], ticket[5] = 7, 9
	s, err := Seal(context.Background(), SealInput{Proof: p, ProverID: ProverID(1000), SectorID: 42, Ticket: ticket, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testSeed(b byte) [32]byte {
	var s [32]byte
	s[0], s[31] = b, 0x11
	return s
}

// checkPartitions synthesises every partition of a C1 in Check mode: the whole
// circuit must be satisfied, and its public inputs must equal PublicInputs'.
func checkPartitions(t *testing.T, out *c1.Commit1Out) error {
	t.Helper()
	p, err := out.ProofType()
	if err != nil {
		t.Fatal(err)
	}
	shape := ShapeOf(p)
	for k := range out.VanillaProofs.Partitions {
		in, err := PartitionInputFromC1(out, k)
		if err != nil {
			return err
		}
		cs := r1cs.New(r1cs.Check)
		if err := Synthesize(cs, shape, in); err != nil {
			return err
		}
		if err := cs.Finish(); err != nil {
			return err
		}
		inputs, _ := cs.Assignment()
		want, err := PublicInputs(p, out.ReplicaID, out.CommD, out.CommR, out.Seed, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(inputs) != len(want)+1 {
			t.Fatalf("partition %d: %d circuit inputs, %d public inputs", k, len(inputs), len(want))
		}
		for i := range want {
			if !inputs[i+1].Equal(&want[i]) {
				t.Fatalf("partition %d: input %d is %s in the circuit, %s from PublicInputs", k, i, inputs[i+1].String(), want[i].String())
			}
		}
	}
	return nil
}

// Our C1 for 2KiB satisfies every constraint of the real circuit, for V1,
// V1_1 and SyntheticPoRep, with data and committed capacity, and the public
// inputs verify-seal computes are the circuit's.
func TestCommit1SatisfiesCircuit2KiB(t *testing.T) {
	data := make([]byte, 2048)
	for i := range data {
		data[i] = byte(i * 7)
		if i%32 == 31 {
			data[i] &= 0x3f
		}
	}
	for _, name := range []string{"StackedDrg2KiBV1", "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep"} {
		for _, d := range [][]byte{data, nil} {
			s := sealFor(t, name, d)
			out, err := s.Commit1(testSeed(3))
			if err != nil {
				t.Fatal(err)
			}
			if err := out.Validate(); err != nil {
				t.Fatalf("%s: our C1 does not validate: %v", name, err)
			}
			if err := checkPartitions(t, out); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
}

func TestCommit1SatisfiesCircuit8MiB(t *testing.T) {
	for _, name := range []string{"StackedDrg8MiBV1", "StackedDrg8MiBV1_1", "StackedDrg8MiBV1_1_Feat_SyntheticPoRep"} {
		s := sealFor(t, name, nil)
		out, err := s.Commit1(testSeed(4))
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyVanilla(context.Background(), out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := checkPartitions(t, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// A corrupted opening breaks the circuit.
func TestCorruptC1FailsTheCircuit(t *testing.T) {
	s := sealFor(t, "StackedDrg2KiBV1_1", nil)
	out, err := s.Commit1(testSeed(5))
	if err != nil {
		t.Fatal(err)
	}
	pr := &out.VanillaProofs.Partitions[0][1]
	pr.ReplicaColumnProofs.DrgParents[2].Column.Rows[1][0] ^= 1
	var ue *r1cs.UnsatisfiedError
	if err := checkPartitions(t, out); !errors.As(err, &ue) {
		t.Fatalf("corrupted parent label: %v", err)
	}
}

// Sealing twice gives identical bytes, and the C1 JSON round-trips.
func TestSealDeterministicAndC1RoundTrip(t *testing.T) {
	a, b := sealFor(t, "StackedDrg2KiBV1_1", nil), sealFor(t, "StackedDrg2KiBV1_1", nil)
	if !bytes.Equal(a.Replica, b.Replica) || a.CommR != b.CommR {
		t.Fatal("two seals differ")
	}
	ca, err := a.Commit1(testSeed(6))
	if err != nil {
		t.Fatal(err)
	}
	cb, _ := b.Commit1(testSeed(6))
	ja, err := c1.Encode(ca)
	if err != nil {
		t.Fatal(err)
	}
	jb, _ := c1.Encode(cb)
	if !bytes.Equal(ja, jb) {
		t.Fatal("two C1 encodings differ")
	}
	back, err := c1.Decode(ja)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := c1.Encode(back)
	if !bytes.Equal(ja, again) {
		t.Fatal("C1 JSON does not round-trip")
	}
	if _, err := a.Commit1([32]byte{}); err == nil {
		t.Fatal("zero seed accepted")
	}
}
