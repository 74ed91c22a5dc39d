package porep

import (
	"bytes"
	"context"
	"testing"

	"github.com/filc2/filc2/internal/testvec"
	"github.com/filc2/filc2/proofs/abi"
)

// Re-sealing the two venus genesis sectors reproduces their replicas byte for
// byte and every commitment (vectors/venus-preseal-2KiB).
func TestSealVenusSectors(t *testing.T) {
	p, err := abi.Lookup(0) // StackedDrg2KiBV1: porep_id zero, api 1.0.0
	if err != nil {
		t.Fatal(err)
	}
	ticket := mustHex32(t, "79ac3dd7defaad6d40e033a1c89124df3cbefdf072868b1924e562f0d4204189")
	want := []struct{ replicaID, commD, commR string }{
		{"61f89482291a9dd662e9232342fbe197fb999de622060bbe5284bf4e020fe012",
			"2d8cd21509618ffea50330291ea4a23523e1e3a5f74ceed0dd66bd327bf51a21",
			"6500105a4dd7673f82730262d8dcffe9edccd3cbceac7bd3c943696a09071257"},
		{"f8de114c92ff643fc6e66fde244f4d4102a2a3acfa4c8d464e0d6de66b413a1a",
			"cba50b4a44d909277ea22e76654dfa89a4ef9664d02192fc7321bbb9580b093e",
			"2f889cb216b14800f68048108b46d2261073ae842074eb66656035421e5ead03"},
	}
	for sector, name := range []string{"s-t0106-0", "s-t0106-1"} {
		in := SealInput{Proof: p, ProverID: ProverID(106), SectorID: uint64(sector), Ticket: ticket,
			Data: testvec.Read(t, "venus-preseal-2KiB", "unsealed", name)}
		s, err := Seal(context.Background(), in, nil)
		if err != nil {
			t.Fatal(err)
		}
		paux := testvec.Read(t, "venus-preseal-2KiB", "p_aux", name)
		w := want[sector]
		switch {
		case !bytes.Equal(s.Replica, testvec.Read(t, "venus-preseal-2KiB", "sealed", name)):
			t.Errorf("%s: replica differs", name)
		case s.ReplicaID != mustHex32(t, w.replicaID):
			t.Errorf("%s: replica_id %x", name, s.ReplicaID)
		case s.CommD != mustHex32(t, w.commD):
			t.Errorf("%s: comm_d %x", name, s.CommD)
		case s.CommC != [32]byte(paux[:32]) || s.CommRLast != [32]byte(paux[32:]):
			t.Errorf("%s: comm_c %x, comm_r_last %x", name, s.CommC, s.CommRLast)
		case s.CommR != mustHex32(t, w.commR):
			t.Errorf("%s: comm_r %x", name, s.CommR)
		}
	}
}

func TestSealRejectsBadData(t *testing.T) {
	p, _ := abi.ParseName("StackedDrg2KiBV1_1")
	if _, err := Seal(context.Background(), SealInput{Proof: p, Data: make([]byte, 100)}, nil); err == nil {
		t.Fatal("short data accepted")
	}
	d := make([]byte, 2048)
	d[63] = 0x80
	if _, err := Seal(context.Background(), SealInput{Proof: p, Data: d}, nil); err == nil {
		t.Fatal("data that is not fr32-padded accepted")
	}
	big, _ := abi.ParseName("StackedDrg32GiBV1_1")
	if _, err := Seal(context.Background(), SealInput{Proof: big}, nil); err == nil {
		t.Fatal("32GiB sealing accepted")
	}
}
