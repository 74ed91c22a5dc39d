package plugintest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/snark"
	"github.com/filc2/filc2/proofs/update"
)

// Update is the SnapDeals type the fixtures use: 2KiB, one partition.
var Update = abi.AllUpdate()[0]

var (
	snapOnce sync.Once
	snapDir  string
	snapErr  error
)

// SnapParams returns a directory with test parameters (a seeded setup) of
// the 2KiB update circuit, made once per test binary.
func SnapParams(t testing.TB) string {
	t.Helper()
	snapOnce.Do(func() {
		dir, err := tempDir("filc2-snap-params-")
		if err != nil {
			snapErr = err
			return
		}
		toxic, err := groth16.SeededToxic(6)
		if err != nil {
			snapErr = err
			return
		}
		if _, _, err := snap.Setup(context.Background(), Update, dir, snark.SetupOptions{Toxic: &toxic}); err != nil {
			snapErr = fmt.Errorf("setup %s: %w", Update.Name, err)
			return
		}
		snapDir = dir
	})
	if snapErr != nil {
		t.Fatal(snapErr)
	}
	return snapDir
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
