package groth16

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/filc2/filc2/proofs/r1cs"
)

// The zcash/blst encodings of the standard generators.
const (
	g1GenCompressed   = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
	g1GenUncompressed = "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb" +
		"08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"
	g2GenCompressed = "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" +
		"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
	g2GenUncompressed = "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" +
		"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8" +
		"0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be" +
		"0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"
)

func TestGeneratorEncodings(t *testing.T) {
	_, _, g1, g2 := bls.Generators()
	c1, u1, c2, u2 := g1.Bytes(), g1.RawBytes(), g2.Bytes(), g2.RawBytes()
	for _, tc := range []struct {
		name string
		got  []byte
		want string
	}{
		{"g1 compressed", c1[:], g1GenCompressed}, {"g1 uncompressed", u1[:], g1GenUncompressed},
		{"g2 compressed", c2[:], g2GenCompressed}, {"g2 uncompressed", u2[:], g2GenUncompressed},
	} {
		if hex.EncodeToString(tc.got) != tc.want {
			t.Errorf("%s: got %x", tc.name, tc.got)
		}
	}
	// Our strict decoders read them back.
	var p1 bls.G1Affine
	if err := decodeG1(&p1, u1[:], true); err != nil || !p1.Equal(&g1) {
		t.Fatalf("decode g1: %v", err)
	}
	var p2 bls.G2Affine
	if err := decodeG2(&p2, u2[:], true); err != nil || !p2.Equal(&g2) {
		t.Fatalf("decode g2: %v", err)
	}
	bad := u1
	bad[95] ^= 1 // off the curve
	if err := decodeG1(&p1, bad[:], false); !errors.Is(err, errNotOnCurve) {
		t.Fatalf("off-curve point: %v", err)
	}
	var inf bls.G1Affine
	ib := inf.RawBytes()
	if err := decodeG1(&p1, ib[:], false); !errors.Is(err, errInfinity) {
		t.Fatalf("infinity in a query: %v", err)
	}
}

func smallKey(t *testing.T) (built, *ProvingKey) {
	t.Helper()
	b := build(t, func(cs *r1cs.System) { randomCircuit(cs, 300, 3, 21, 22) })
	pk, err := Setup(context.Background(), b.circuit, WithRandom(newSeeded(7)))
	if err != nil {
		t.Fatal(err)
	}
	return b, pk
}

func TestParamsRoundTripByteForByte(t *testing.T) {
	b, pk := smallKey(t)
	dir := t.TempDir()
	params, vkPath := filepath.Join(dir, "k.params"), filepath.Join(dir, "k.vk")
	if err := WriteParamsFile(params, pk); err != nil {
		t.Fatal(err)
	}
	if err := WriteVerifyingKeyFile(vkPath, &pk.VK); err != nil {
		t.Fatal(err)
	}
	shape := ShapeOf(b.circuit.Stats())
	ctx := context.Background()
	got, err := ReadParamsFile(ctx, params, shape, WithSubgroupChecks())
	if err != nil {
		t.Fatal(err)
	}
	var w1, w2 bytes.Buffer
	pk.WriteTo(&w1)
	got.WriteTo(&w2)
	raw, _ := os.ReadFile(params)
	if !bytes.Equal(w1.Bytes(), w2.Bytes()) || !bytes.Equal(raw, w1.Bytes()) {
		t.Fatal(".params does not round-trip byte for byte")
	}
	vk, err := ReadVerifyingKeyFile(vkPath, shape.NumInputs, WithSubgroupChecks())
	if err != nil {
		t.Fatal(err)
	}
	var v1, v2 bytes.Buffer
	pk.VK.WriteTo(&v1)
	vk.WriteTo(&v2)
	rawVK, _ := os.ReadFile(vkPath)
	if !bytes.Equal(v1.Bytes(), v2.Bytes()) || !bytes.Equal(rawVK, v1.Bytes()) || !bytes.HasPrefix(raw, rawVK) {
		t.Fatal(".vk does not round-trip byte for byte, or is not the .params prefix")
	}
	if want := vkFixed + 4 + 96*shape.NumInputs; len(rawVK) != want {
		t.Fatalf(".vk is %d bytes, want %d", len(rawVK), want)
	}
	// Partial reads return the same points.
	pf, err := OpenParams(params, shape)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	part := make([]bls.G1Affine, 5)
	if err := pf.ReadG1(ctx, QueryL, 3, part); err != nil {
		t.Fatal(err)
	}
	for i := range part {
		if !part[i].Equal(&pk.L[3+i]) {
			t.Fatalf("L[%d] differs", 3+i)
		}
	}
	if err := pf.ReadG1(ctx, QueryL, len(pk.L)-2, part); err == nil {
		t.Fatal("read past the section accepted")
	}
}

func TestParamsErrorsNameFileSectionOffset(t *testing.T) {
	b, pk := smallKey(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "k.params")
	if err := WriteParamsFile(path, pk); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	shape := ShapeOf(b.circuit.Stats())
	lens := shape.Lengths()
	offH := int64(vkFixed + 4 + 96*shape.NumInputs) // |h| field
	offL := offH + 4 + 96*int64(lens[0])
	cases := []struct {
		name    string
		mutate  func([]byte) []byte
		shape   Shape
		section string
		offset  int64
		msg     string
	}{
		{"truncated in b_g2", func(r []byte) []byte { return r[:len(r)-100] }, shape, "b_g2", -1, "truncated"},
		{"truncated in the vk", func(r []byte) []byte { return r[:500] }, shape, "vk", -1, "truncated"},
		{"wrong circuit", func(r []byte) []byte { return r }, func() Shape { s := shape; s.NumAux++; return s }(), "l", offL, "another circuit"},
		{"trailing bytes", func(r []byte) []byte { return append(r, 0) }, shape, "end", int64(len(raw)), "trailing"},
		{"corrupt point", func(r []byte) []byte { r[offL+4+96*2+50] ^= 0x10; return r }, shape, "l[2]", offL + 4 + 96*2, "curve"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			os.WriteFile(p, tc.mutate(append([]byte(nil), raw...)), 0o644)
			_, err := ReadParamsFile(context.Background(), p, tc.shape)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a FormatError", err)
			}
			if fe.File != p || fe.Section != tc.section || (tc.offset >= 0 && fe.Offset != tc.offset) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v (section %q offset %d)", err, fe.Section, fe.Offset)
			}
		})
	}
}

func TestProofBytesStrict(t *testing.T) {
	b, pk := smallKey(t)
	proof, err := Prove(context.Background(), pk, b.circuit, b.w)
	if err != nil {
		t.Fatal(err)
	}
	enc := EncodeProofs([]Proof{*proof, *proof})
	if len(enc) != 2*ProofSize {
		t.Fatalf("%d bytes", len(enc))
	}
	back, err := DecodeProofs(enc, 2)
	if err != nil || !back[1].A.Equal(&proof.A) || !back[1].B.Equal(&proof.B) || !back[1].C.Equal(&proof.C) {
		t.Fatalf("decode: %v", err)
	}
	if _, err := DecodeProofs(enc[:len(enc)-1], 2); err == nil {
		t.Fatal("short proof accepted")
	}
	for _, tc := range []struct {
		off  int
		set  byte
		name string
	}{{0, 0x00, "uncompressed flag on A"}, {48, 0xc0, "infinity B"}, {144, 0x20, "missing compression flag on C"}} {
		bad := append([]byte(nil), enc[:ProofSize]...)
		bad[tc.off] = tc.set | (bad[tc.off] & 0x1f)
		var p Proof
		if err := p.SetBytes(bad); err == nil {
			t.Errorf("%s accepted", tc.name)
		}
	}
}
