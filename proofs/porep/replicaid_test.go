package porep

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"golang.org/x/crypto/blake2b"
)

// The venus 2KiB preseal fixtures (shared/vectors/venus-preseal-2KiB): miner
// t0106, proof type 0 (porep_id 0), ticket BLAKE2b-256("lotus is fire").
const venusMiner = 106

var venusSectors = []struct {
	number    uint64
	file      string
	commD     string // SUMMARY_decoded.json comm_d
	commR     string // SUMMARY_decoded.json comm_r
	replicaID string // README, little-endian
}{
	{0, "s-t0106-0",
		"2d8cd21509618ffea50330291ea4a23523e1e3a5f74ceed0dd66bd327bf51a21",
		"6500105a4dd7673f82730262d8dcffe9edccd3cbceac7bd3c943696a09071257",
		"61f89482291a9dd662e9232342fbe197fb999de622060bbe5284bf4e020fe012"},
	{1, "s-t0106-1",
		"cba50b4a44d909277ea22e76654dfa89a4ef9664d02192fc7321bbb9580b093e",
		"2f889cb216b14800f68048108b46d2261073ae842074eb66656035421e5ead03",
		"f8de114c92ff643fc6e66fde244f4d4102a2a3acfa4c8d464e0d6de66b413a1a"},
}

// venusTicket returns the venus ticket and checks its stated derivation.
func venusTicket(t *testing.T) [32]byte {
	t.Helper()
	const want = "79ac3dd7defaad6d40e033a1c89124df3cbefdf072868b1924e562f0d4204189"
	ticket := blake2b.Sum256([]byte("lotus is fire"))
	if hex.EncodeToString(ticket[:]) != want {
		t.Fatalf("ticket %x, want %s", ticket, want)
	}
	return ticket
}

func mustHex32(t testing.TB, s string) [32]byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad 32-byte hex %q: %v", s, err)
	}
	return [32]byte(b)
}

func TestReplicaIDVenus(t *testing.T) {
	ticket := venusTicket(t)
	for _, s := range venusSectors {
		got := ReplicaID(ProverID(venusMiner), s.number, ticket, mustHex32(t, s.commD), [32]byte{})
		if hex.EncodeToString(got[:]) != s.replicaID {
			t.Errorf("sector %d: replica id %x, want %s", s.number, got, s.replicaID)
		}
	}
	// The sector id is big-endian: little-endian would differ for sector 1.
	got := ReplicaID(ProverID(venusMiner), 1<<56, ticket, mustHex32(t, venusSectors[1].commD), [32]byte{})
	if hex.EncodeToString(got[:]) == venusSectors[1].replicaID {
		t.Error("sector id 1<<56 gives sector 1's replica id")
	}
}

func TestReplicaIDTrim(t *testing.T) {
	// Some inputs hash to a top byte with bit 7 or 6 set; the trim clears both
	// and nothing else.
	seen := 0
	for i := range uint64(64) {
		id := ReplicaID([32]byte{}, i, [32]byte{}, [32]byte{}, [32]byte{})
		if id[31]&0xc0 != 0 {
			t.Fatalf("sector %d: replica id top bits %#x", i, id[31])
		}
		var pre [136]byte
		pre[39] = byte(i)
		full := sha256.Sum256(pre[:])
		if full[31]&0xc0 != 0 {
			seen++
		}
		full[31] &= 0x3f
		if full != id {
			t.Fatalf("sector %d: replica id %x, want trimmed %x", i, id, full)
		}
	}
	if seen == 0 {
		t.Fatal("no input had a top bit set; the trim went untested")
	}
}

func TestProverID(t *testing.T) {
	for _, tc := range []struct {
		miner uint64
		want  string // leading bytes; the rest are zero
	}{
		{0, "00"},
		{106, "6a"},
		{127, "7f"},
		{128, "8001"},
		{1000, "e807"},
		{16384, "808001"},
		{1<<64 - 1, "ffffffffffffffffff01"},
	} {
		got := ProverID(tc.miner)
		want := mustHexPad(t, tc.want)
		if got != want {
			t.Errorf("ProverID(%d) = %x, want %x", tc.miner, got, want)
		}
	}
}

func mustHexPad(t *testing.T, s string) [32]byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	var out [32]byte
	copy(out[:], b)
	return out
}
