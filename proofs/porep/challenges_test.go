package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/abi"
)

// challengeModel is bigint_to_challenge over math/big: the digest as
// BigUint::from_bytes_le, mod (nodes − 1), plus 1.
func challengeModel(h []byte, nodes uint64) uint64 {
	be := slices.Clone(h)
	slices.Reverse(be)
	x := new(big.Int).SetBytes(be)
	x.Mod(x, new(big.Int).SetUint64(nodes-1))
	return x.Uint64() + 1
}

func randBytes32(r *rand.Rand) [32]byte {
	var b [32]byte
	for i := range 4 {
		binary.LittleEndian.PutUint64(b[8*i:], r.Uint64())
	}
	return b
}

func TestInteractiveChallengesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, nodes := range []uint64{64, 1 << 24, 1 << 30, 1 << 31, 3} {
		rid, seed := randBytes32(r), randBytes32(r)
		for _, k := range []int{0, 1, 9, 255} {
			got := InteractiveChallenges(nodes, rid, seed, k, 18)
			for i, c := range got {
				pre := append(append(rid[:], seed[:]...), binary.LittleEndian.AppendUint32(nil, uint32(18*k+i))...)
				h := sha256.Sum256(pre)
				if want := challengeModel(h[:], nodes); c != want {
					t.Fatalf("nodes %d k %d i %d: %d, want %d", nodes, k, i, c, want)
				}
				if c < 1 || c >= nodes {
					t.Fatalf("nodes %d: challenge %d outside [1, nodes)", nodes, c)
				}
			}
		}
	}
	// The digest is read little-endian: big-endian gives other challenges.
	rid, seed := randBytes32(r), randBytes32(r)
	c := InteractiveChallenges(1<<30, rid, seed, 0, 1)[0]
	h := sha256.Sum256(append(append(rid[:], seed[:]...), 0, 0, 0, 0))
	if be := new(big.Int).SetBytes(h[:]); c == new(big.Int).Mod(be, big.NewInt(1<<30-1)).Uint64()+1 {
		t.Error("challenge equals the big-endian reading")
	}
}

func TestNonInteractiveChallengesModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, nodes := range []uint64{64, 1 << 30} {
		rid, commR := randBytes32(r), randBytes32(r)
		for _, k := range []int{0, 12, 125} {
			got := NonInteractiveChallenges(nodes, rid, commR, k, 18)
			for i, c := range got {
				pre := append([]byte("filecoin.io|PoRep|1|NonInteractive|1"), rid[:]...)
				pre = append(pre, commR[:]...)
				pre = binary.LittleEndian.AppendUint32(pre, uint32(18*k+i))
				h := sha256.Sum256(pre)
				if want := challengeModel(h[:], nodes); c != want {
					t.Fatalf("nodes %d k %d i %d: %d, want %d", nodes, k, i, c, want)
				}
			}
		}
	}
}

// Partitioning: the challenges of partitions 0..P−1 of C each are those of
// one partition of P·C (challenges.rs challenge_partition_equivalence and
// test_synth_challenges_32gib).
func TestChallengePartitionEquivalence(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	rid, seed, commR := randBytes32(r), randBytes32(r), randBytes32(r)
	const nodes, n, parts = 1 << 30, 18, 10
	for name, f := range map[string]func(k, count int) []uint64{
		"interactive": func(k, count int) []uint64 { return InteractiveChallenges(nodes, rid, seed, k, count) },
		"ni":          func(k, count int) []uint64 { return NonInteractiveChallenges(nodes, rid, commR, k, count) },
		"synthetic":   func(k, count int) []uint64 { return SyntheticChallenges(nodes, rid, commR, seed, k, count) },
	} {
		var many []uint64
		for k := range parts {
			many = append(many, f(k, n)...)
		}
		if one := f(0, n*parts); !slices.Equal(one, many) {
			t.Errorf("%s: partitioned challenges differ from one partition", name)
		}
	}
}

// TestSyntheticChallengeVectors is challenges.rs
// test_synth_challenges_against_hardcoded (shared/vectors/poseidon_sdr.json
// synthetic_porep_challenges): 2^10 nodes, replica_id Fr(55), comm_r Fr(101),
// 21 synthetic challenges, 10 porep challenges selected with [1; 32].
func TestSyntheticChallengeVectors(t *testing.T) {
	const nodes = 1 << 10
	rid := [32]byte{0: 55}
	commR := [32]byte{0: 101}
	var rand [32]byte
	for i := range rand {
		rand[i] = 1
	}
	wantSynth := []uint64{178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856, 801, 176, 692, 429, 691, 290, 204, 986, 210, 973}
	wantPoRep := []uint64{176, 781, 801, 986, 290, 211, 692, 856, 986, 332}

	for i, want := range wantSynth {
		if got := SyntheticChallenge(nodes, rid, commR, uint64(i)); got != want {
			t.Errorf("synthetic challenge %d = %d, want %d", i, got, want)
		}
	}
	set := SyntheticChallengeSet(nodes, rid, commR)
	if len(set) != nodes || !slices.Equal(set[:len(wantSynth)], wantSynth) {
		t.Errorf("synthetic set: %d challenges starting %v, want %d starting %v", len(set), set[:21], nodes, wantSynth)
	}
	for i := len(set) - 1; i >= 0; i -= 97 { // seeking agrees with streaming
		if got := SyntheticChallenge(nodes, rid, commR, uint64(i)); got != set[i] {
			t.Fatalf("synthetic challenge %d = %d, the set has %d", i, got, set[i])
		}
	}
	if got := syntheticChallenges(nodes, uint64(len(wantSynth)), rid, commR, rand, 0, 10); !slices.Equal(got, wantPoRep) {
		t.Errorf("porep challenges %v, want %v", got, wantPoRep)
	}
}

func TestSyntheticChallengeCount(t *testing.T) {
	for _, tc := range []struct{ nodes, want uint64 }{{64, 64}, {1 << 18, 1 << 18}, {1 << 19, 1 << 18}, {1 << 30, 1 << 18}} {
		if got := SyntheticChallengeCount(tc.nodes); got != tc.want {
			t.Errorf("SyntheticChallengeCount(%d) = %d, want %d", tc.nodes, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(11, 12))
	rid, seed := randBytes32(r), randBytes32(r)
	for _, idx := range SyntheticIndexes(1<<18, rid, seed, 3, 18) {
		if idx >= 1<<18 {
			t.Fatalf("index %d ≥ 2^18", idx)
		}
	}
}

// Challenges picks the derivation from the proof type and checks its
// arguments.
func TestChallengesDispatch(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	rid, seed, commR := randBytes32(r), randBytes32(r), randBytes32(r)
	rid[31] &= 0x3f
	commR[31] &= 0x3f
	for _, p := range abi.All() {
		for _, k := range []int{0, p.Partitions - 1} {
			got, err := Challenges(p, rid, seed, commR, k)
			if err != nil {
				t.Fatalf("%v k %d: %v", p, k, err)
			}
			var want []uint64
			switch p.ChallengeKind {
			case abi.Interactive:
				want = InteractiveChallenges(p.Nodes, rid, seed, k, p.ChallengesPerPartition)
			case abi.Synthetic:
				want = SyntheticChallenges(p.Nodes, rid, commR, seed, k, p.ChallengesPerPartition)
			case abi.NonInteractive:
				want = NonInteractiveChallenges(p.Nodes, rid, commR, k, p.ChallengesPerPartition)
			}
			if len(got) != p.ChallengesPerPartition || !slices.Equal(got, want) {
				t.Fatalf("%v k %d: %v, want %d challenges %v", p, k, got, p.ChallengesPerPartition, want)
			}
			for _, c := range got {
				if c < 1 || c >= p.Nodes {
					t.Fatalf("%v: challenge %d outside [1, %d)", p, c, p.Nodes)
				}
			}
		}
		for _, k := range []int{-1, p.Partitions} {
			if _, err := Challenges(p, rid, seed, commR, k); err == nil {
				t.Errorf("%v: partition %d accepted", p, k)
			}
		}
		// comm_r = r is rejected where it is used.
		_, err := Challenges(p, rid, seed, modulusLE(), 0)
		if (err != nil) != (p.ChallengeKind != abi.Interactive) {
			t.Errorf("%v: comm_r = r gives error %v", p, err)
		}
	}
	// The three kinds give different challenges from the same inputs.
	a, _ := abi.BySectorSize(32<<30, abi.Interactive)
	s, _ := abi.BySectorSize(32<<30, abi.Synthetic)
	ca, _ := Challenges(a, rid, seed, commR, 0)
	cs, _ := Challenges(s, rid, seed, commR, 0)
	if slices.Equal(ca, cs) {
		t.Error("interactive and synthetic challenges agree")
	}
}

func TestChallengeArgsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"k 256":       func() { InteractiveChallenges(64, [32]byte{}, [32]byte{}, 256, 2) },
		"k -1":        func() { NonInteractiveChallenges(64, [32]byte{}, [32]byte{}, -1, 2) },
		"1 node":      func() { InteractiveChallenges(1, [32]byte{}, [32]byte{}, 0, 2) },
		"2^32 nodes":  func() { InteractiveChallenges(1<<32, [32]byte{}, [32]byte{}, 0, 2) },
		"synth index": func() { SyntheticChallenge(64, [32]byte{}, [32]byte{}, 64) },
		"0 synth":     func() { SyntheticIndexes(0, [32]byte{}, [32]byte{}, 0, 2) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// modulusLE returns r as 32 little-endian bytes, the least non-canonical
// encoding.
func modulusLE() [32]byte {
	var b [32]byte
	fr.Modulus().FillBytes(b[:])
	slices.Reverse(b[:])
	return b
}
