package porep

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
)

func TestPublicInputCount(t *testing.T) {
	if PublicInputsPerChallenge != 18 {
		t.Fatalf("PublicInputsPerChallenge = %d, want 18", PublicInputsPerChallenge)
	}
	r := rand.New(rand.NewPCG(15, 16))
	rid, commD, commR, seed := randBytes32(r), randBytes32(r), randBytes32(r), randBytes32(r)
	rid[31] &= 0x3f
	commD[31] &= 0x3f
	commR[31] &= 0x3f
	for _, p := range abi.All() {
		// 39 and 327 inputs besides ONE: the vk's IC has 40 and 328 points.
		want := 39
		if p.SectorSize >= 32<<30 {
			want = 327
		}
		if got := PublicInputCount(p.ChallengesPerPartition); got != want {
			t.Errorf("%v: PublicInputCount = %d, want %d", p, got, want)
		}
		in, err := PublicInputs(p, rid, commD, commR, seed, p.Partitions-1)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if len(in) != want {
			t.Errorf("%v: %d public inputs, want %d", p, len(in), want)
		}
	}
}

// The vector is replica_id, comm_d, comm_r, then per challenge c, the DRG
// parents in slot order, the expander parents and c three times.
func TestPublicInputsLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, id := range []int{0, 6, 13, 18, 3} {
		p := abi.All()[id]
		rid, commD, commR, seed := randBytes32(r), randBytes32(r), randBytes32(r), randBytes32(r)
		rid[31] &= 0x3f
		commD[31] &= 0x1f
		commR[31] &= 0x1f
		k := p.Partitions / 2
		in, err := PublicInputs(p, rid, commD, commR, seed, k)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range [][32]byte{rid, commD, commR} {
			var got [32]byte
			fr.LittleEndian.PutElement(&got, in[i])
			if got != b {
				t.Errorf("%v: input %d = %x, want %x", p, i, got, b)
			}
		}
		cs, _ := Challenges(p, rid, seed, commR, k)
		g, _ := NewGraphFor(p)
		var parents [14]uint32
		for j, c := range cs {
			g.Parents(c, &parents)
			want := []uint64{c}
			for _, q := range parents {
				want = append(want, uint64(q))
			}
			want = append(want, c, c, c)
			for i, w := range want {
				e := in[3+18*j+i]
				if !e.IsUint64() || e.Uint64() != w {
					t.Fatalf("%v: challenge %d input %d = %s, want %d", p, j, i, e.String(), w)
				}
			}
		}
	}
}

func TestPublicInputsErrors(t *testing.T) {
	p, _ := abi.Lookup(1) // 8MiB V1
	var ok [32]byte
	bad := modulusLE()
	var ones [32]byte
	for i := range ones {
		ones[i] = 0xff
	}
	for name, tc := range map[string]struct {
		rid, commD, commR [32]byte
		k                 int
	}{
		"comm_d = r":         {ok, bad, ok, 0},
		"comm_r = r":         {ok, ok, bad, 0},
		"replica_id 2^256-1": {ones, ok, ok, 0},
		"partition 1":        {ok, ok, ok, 1},
		"partition -1":       {ok, ok, ok, -1},
	} {
		if _, err := PublicInputs(p, tc.rid, tc.commD, tc.commR, ok, tc.k); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// r − 1 is canonical.
	below := bad
	below[0]--
	if _, err := PublicInputs(p, ok, below, below, ok, 0); err != nil {
		t.Errorf("comm_d = comm_r = r − 1: %v", err)
	}
	g, _ := NewGraph(64, p.PoRepID(), p.APIVersion)
	if _, err := g.PublicInputs(p, ok, ok, ok, ok, 0); err == nil {
		t.Error("a 64-node graph accepted for 8MiB")
	}
}

// A graph with another porep_id (other chains pair porep_id 0 with V1_2_0)
// gives other parents, hence other inputs, for the same proof type.
func TestPublicInputsGraphPoRepID(t *testing.T) {
	p, _ := abi.BySectorSize(2<<10, abi.NonInteractive)
	g, _ := NewGraph(p.Nodes, [32]byte{}, p.APIVersion)
	var rid, seed, comm [32]byte
	rid[0], comm[0] = 1, 2
	a, err := PublicInputs(p, rid, comm, comm, seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.PublicInputs(p, rid, comm, comm, seed, 0)
	if err != nil {
		t.Fatal(err)
	}
	same := true
	for i := range a {
		same = same && a[i] == b[i]
	}
	if same {
		t.Error("porep_id 0 and porep_id 18 give the same inputs")
	}
}

// The venus sector 0 inputs start with its replica id, comm_d and comm_r.
func TestPublicInputsVenus(t *testing.T) {
	p, _ := abi.Lookup(0)
	s := venusSectors[0]
	rid := ReplicaID(ProverID(venusMiner), s.number, venusTicket(t), mustHex32(t, s.commD), p.PoRepID())
	in, err := PublicInputs(p, rid, mustHex32(t, s.commD), mustHex32(t, s.commR), [32]byte{7}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 39 {
		t.Fatalf("%d inputs, want 39", len(in))
	}
	var b [32]byte
	fr.LittleEndian.PutElement(&b, in[0])
	if b != rid {
		t.Errorf("input 0 = %x, want the replica id %x", b, rid)
	}
}
