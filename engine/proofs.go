package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/filc2/filc2/proofs/c2"
	"github.com/filc2/filc2/proofs/fallback"
	"github.com/filc2/filc2/proofs/groth16"
	"github.com/filc2/filc2/proofs/porep"
	"github.com/filc2/filc2/proofs/post"
	"github.com/filc2/filc2/proofs/r1cs"
	"github.com/filc2/filc2/proofs/snap"
	"github.com/filc2/filc2/proofs/snark"
	"github.com/filc2/filc2/proofs/update"
)

// Proofs is the Backend on the proof packages: PoRep circuits and keys from
// a parameter directory (c2.Load), witnesses from c2.Witness, verification by
// c2.VerifyPartition; PoSt the same way on package post, SnapDeals on
// package snap. Every kind proves through the one GPUBackend.
type Proofs struct {
	ParamsDir string     // where the .params, .vk and recorded circuits are
	GPU       GPUBackend // the per-GPU provers
}

// GPUBackend is a GPU library as Proofs uses it: it makes one circuit's
// proving key resident on one GPU and proves there in the three stages of
// PartitionProver. WholeProof adapts a whole-proof groth16.Backend.
type GPUBackend interface {
	// Name is a short identifier ("cpu", "cuda").
	Name() string
	// LoadProver makes pk (of circuit c) resident on GPU gpu.
	LoadProver(ctx context.Context, gpu int, pk *groth16.ProvingKey, c *r1cs.Circuit) (PartitionProver, error)
	// WorkingBytes is the host memory one partition's three stages need
	// beyond its witness.
	WorkingBytes(c *r1cs.Circuit) int64
}

// Name implements Backend.
func (b *Proofs) Name() string { return "proofs/" + b.GPU.Name() }

// Check implements Backend. PoRep: the structural rules (c1.Validate) and
// the vanilla proofs (porep.VerifyVanilla). PoSt: the vanilla check the
// reference runs before proving (fallback.Partition.Check).
func (b *Proofs) Check(ctx context.Context, in Input) error {
	switch in := in.(type) {
	case *PoRep:
		if err := in.C1.Validate(); err != nil {
			return err
		}
		return porep.VerifyVanilla(ctx, in.C1, porep.VanillaGate(cpuGateOf(ctx)))
	case *PoSt:
		if in.Checked {
			return nil
		}
		return in.Partition.Check(in.Randomness)
	case *Snap:
		if in.Checked {
			return nil
		}
		return snap.Check(in.Request)
	}
	return fmt.Errorf("engine: the %s backend does not prove %T inputs", b.Name(), in)
}

// CircuitBytes implements Backend: the sizes of the .params file and the
// recorded circuit, which is about what they take in memory.
func (b *Proofs) CircuitBytes(c CircuitSpec) (int64, error) {
	var f snark.Files
	var fetch string
	switch c.Kind {
	case KindPoRep:
		f, fetch = c2.FilesIn(b.ParamsDir, c.Seal), "-p "+c.Name
	case KindWindowPoSt, KindWinningPoSt:
		f, fetch = post.FilesIn(b.ParamsDir, c.PoSt), "--post-proof "+c.Name
	case KindSnapDeals:
		f, fetch = snap.FilesIn(b.ParamsDir, c.Update), "--update-proof "+c.Name
	default:
		return 0, fmt.Errorf("engine: the %s backend does not prove %s", b.Name(), c.Kind)
	}
	st, err := os.Stat(f.Params)
	if err != nil {
		return 0, fmt.Errorf("%s parameters: %w; run `filc2 params fetch %s` (official) or `filc2 setup %s --out DIR` (test)", c.Name, err, fetch, fetch)
	}
	n := st.Size()
	if st, err := os.Stat(f.PCE); err == nil {
		n += st.Size()
	}
	return n, nil
}

// LoadCircuit implements Backend with c2.Load or post.Load. The keys stay on
// the host, shared by every GPU's prover; no backend SRS is made here.
func (b *Proofs) LoadCircuit(ctx context.Context, c CircuitSpec, progress func(done, total int64)) (Circuit, error) {
	progress(0, 1)
	defer progress(1, 1)
	switch c.Kind {
	case KindPoRep:
		pr, err := c2.Load(ctx, c.Seal, c2.LoadOptions{ParamsDir: b.ParamsDir, Backend: hostKeys{}})
		if err != nil {
			return nil, err
		}
		return &c2Circuit{partitionSynth: newPartitionSynth(pr.Circuit, pr.Shape, b.GPU), pr: pr}, nil
	case KindWindowPoSt, KindWinningPoSt:
		pr, err := post.Load(ctx, c.PoSt, post.LoadOptions{ParamsDir: b.ParamsDir, Backend: hostKeys{}})
		if err != nil {
			return nil, err
		}
		return &postCircuit{pr: pr, partBytes: witnessBytes(pr.Circuit) + b.GPU.WorkingBytes(pr.Circuit)}, nil
	case KindSnapDeals:
		pr, err := snap.Load(ctx, c.Update, snap.LoadOptions{ParamsDir: b.ParamsDir, Backend: hostKeys{}})
		if err != nil {
			return nil, err
		}
		return &snapCircuit{pr: pr, partBytes: witnessBytes(pr.Circuit) + b.GPU.WorkingBytes(pr.Circuit)}, nil
	}
	return nil, fmt.Errorf("engine: the %s backend does not prove %s", b.Name(), c.Kind)
}

// LoadProver implements Backend.
func (b *Proofs) LoadProver(ctx context.Context, gpu int, c Circuit) (PartitionProver, error) {
	switch cc := c.(type) {
	case *c2Circuit:
		return b.GPU.LoadProver(ctx, gpu, cc.pr.PK, cc.pr.Circuit)
	case *postCircuit:
		return b.GPU.LoadProver(ctx, gpu, cc.pr.PK, cc.pr.Circuit)
	case *snapCircuit:
		return b.GPU.LoadProver(ctx, gpu, cc.pr.PK, cc.pr.Circuit)
	}
	return nil, fmt.Errorf("engine: circuit %T was not loaded by the %s backend", c, b.Name())
}

// witnessBytes is the size of one dense witness of c.
func witnessBytes(c *r1cs.Circuit) int64 {
	return int64(c.NumInputs+c.NumAux) * fr.Bytes
}

// c2Circuit is a PoRep Circuit: a c2.Prover whose keys stay on the host.
type c2Circuit struct {
	partitionSynth
	pr *c2.Prover
}

func (c *c2Circuit) Verify(in Input, k int, proof *groth16.Proof) error {
	pr, err := poRepInput(in)
	if err != nil {
		return err
	}
	out := pr.C1
	return c2.VerifyPartition(c.pr.PVK, pr.Proof, out.ReplicaID, out.CommD, out.CommR, out.Seed, k, proof)
}

func (c *c2Circuit) Close() error { return c.pr.Close() }

// KeyBytes implements KeyBytes: what the key's points pin in host memory if none fit on a GPU.
func (c *c2Circuit) KeyBytes() int64 { return keyPointBytes(c.pr.PK) }

// keyPointBytes is the size of pk's five queries' points as the GPU holds them.
func keyPointBytes(pk *groth16.ProvingKey) int64 {
	if pk == nil {
		return 0
	}
	g1 := int64(len(pk.H)+len(pk.L)+len(pk.A)+len(pk.BG1)) * int64(unsafe.Sizeof(bls.G1Affine{}))
	return g1 + int64(len(pk.BG2))*int64(unsafe.Sizeof(bls.G2Affine{}))
}

// poRepInput is in as the PoRep input a PoRep circuit takes.
func poRepInput(in Input) (*PoRep, error) {
	pr, ok := in.(*PoRep)
	if !ok || pr.C1 == nil {
		return nil, fmt.Errorf("engine: a PoRep circuit given a %T input", in)
	}
	return pr, nil
}

// postCircuit is a PoSt Circuit (Window or Winning): a post.Prover whose
// keys stay on the host. A PoSt job is one proving run, so no witness is
// pooled.
type postCircuit struct {
	pr        *post.Prover
	partBytes int64
}

// PartitionBytes implements Circuit: a witness and the GPU backend's working memory.
func (c *postCircuit) PartitionBytes() int64 { return c.partBytes }

// KeyBytes implements KeyBytes.
func (c *postCircuit) KeyBytes() int64 { return keyPointBytes(c.pr.PK) }

// Synthesize implements Circuit with post.Witness.
func (c *postCircuit) Synthesize(ctx context.Context, in Input, k int) (*groth16.Assignment, error) {
	ps, err := postInput(in, k)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return post.Witness(ps.Partition, c.pr.Circuit, fallback.WithGate(cpuGateOf(ctx)))
}

// Verify implements Circuit with post.Verify.
func (c *postCircuit) Verify(in Input, k int, proof *groth16.Proof) error {
	ps, err := postInput(in, k)
	if err != nil {
		return err
	}
	pt := ps.Partition
	return post.Verify(c.pr.PVK, pt.Proof, ps.Randomness, pt.PublicSectors(), pt.Index, groth16.EncodeProofs([]groth16.Proof{*proof}))
}

func (c *postCircuit) Close() error { return c.pr.Close() }

// postInput is in as the PoSt input a PoSt circuit takes (a PoSt job's one
// proving run is k = 0).
func postInput(in Input, k int) (*PoSt, error) {
	ps, ok := in.(*PoSt)
	if !ok || ps.Partition == nil {
		return nil, fmt.Errorf("engine: a PoSt circuit given a %T input", in)
	}
	if k != 0 {
		return nil, fmt.Errorf("engine: a PoSt job has one proving run, not %d", k+1)
	}
	return ps, nil
}

// snapCircuit is a SnapDeals Circuit: a snap.Prover whose keys stay on the
// host. Each partition synthesises its own witness (none is pooled).
type snapCircuit struct {
	pr        *snap.Prover
	partBytes int64
}

// PartitionBytes implements Circuit: a witness and the GPU backend's working memory.
func (c *snapCircuit) PartitionBytes() int64 { return c.partBytes }

// KeyBytes implements KeyBytes.
func (c *snapCircuit) KeyBytes() int64 { return keyPointBytes(c.pr.PK) }

// Synthesize implements Circuit with snap.Witness.
func (c *snapCircuit) Synthesize(ctx context.Context, in Input, k int) (*groth16.Assignment, error) {
	sn, err := snapInput(in, k)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return snap.Witness(sn.Request, k, c.pr.Circuit, update.WithGate(cpuGateOf(ctx)))
}

// Verify implements Circuit with snap.VerifyPartition.
func (c *snapCircuit) Verify(in Input, k int, proof *groth16.Proof) error {
	sn, err := snapInput(in, k)
	if err != nil {
		return err
	}
	r := sn.Request
	return snap.VerifyPartition(c.pr.PVK, r.Proof, r.Commitments, k, groth16.EncodeProofs([]groth16.Proof{*proof}))
}

func (c *snapCircuit) Close() error { return c.pr.Close() }

// snapInput is in as the Snap input a Snap circuit takes, k one of its partitions.
func snapInput(in Input, k int) (*Snap, error) {
	sn, ok := in.(*Snap)
	if !ok || sn.Request == nil {
		return nil, fmt.Errorf("engine: a SnapDeals circuit given a %T input", in)
	}
	if k < 0 || k >= sn.Request.Proof.Partitions {
		return nil, fmt.Errorf("engine: partition %d of a %s job of %d", k, sn.Request.Proof.Name, sn.Request.Proof.Partitions)
	}
	return sn, nil
}

// hostKeys is the groth16.Backend C2 hands c2.Load: it keeps nothing beyond
// the host keys (the GPU provers load their own SRS) and never proves.
type hostKeys struct{}

func (hostKeys) Name() string { return "host" }

func (hostKeys) LoadSRS(context.Context, *groth16.ProvingKey, *r1cs.Circuit) (groth16.SRS, error) {
	return noSRS{}, nil
}

func (hostKeys) Prove(context.Context, groth16.SRS, *groth16.Assignment, fr.Element, fr.Element) (*groth16.Proof, error) {
	return nil, errors.New("engine: the host keys do not prove; the engine proves through a PartitionProver")
}

type noSRS struct{}

func (noSRS) Close() error { return nil }
