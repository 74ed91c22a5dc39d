package plugintest

import (
	"testing"

	"github.com/filc2/filc2/internal/testparams"
	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/snark"
	"github.com/filc2/filc2/proofs/update"
)

// Update is the SnapDeals type the fixtures use: 2KiB, one partition.
var Update = abi.AllUpdate()[0]

// SnapParams returns a directory with test parameters of the 2KiB update
// circuit (a setup seeded by 6), shared by every test binary on the machine
// (testparams.SnapDir).
func SnapParams(t testing.TB) string {
	t.Helper()
	return testparams.SnapDir(t, Update, 6)
}

// SnapVanilla returns a random 2KiB update's commitments and its partitions'
// bincode vanilla proofs (seeded).
func SnapVanilla(t testing.TB, seed uint64) (update.Commitments, [][]byte) {
	t.Helper()
	req, _, err := snap.RandomRequest(Update, seed)
	if err != nil {
		t.Fatal(err)
	}
	var raw [][]byte
	for _, pp := range req.Vanilla {
		raw = append(raw, pp.Encode())
	}
	return req.Commitments, raw
}

// VerifySnap verifies an update proof under SnapParams' key.
func VerifySnap(t testing.TB, pub update.Commitments, proof []byte) error {
	t.Helper()
	pvk, err := snark.ReadVerifyingKey(snap.FilesIn(SnapParams(t), Update).VK, snap.NumInputs)
	if err != nil {
		return err
	}
	return snap.Verify(pvk, Update, pub, proof)
}
