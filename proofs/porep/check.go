package porep

import (
	"context"
	"errors"
	"fmt"

	"github.com/filc2/filc2/internal/par"
	"github.com/filc2/filc2/proofs/c1"
	"github.com/filc2/filc2/proofs/r1cs"
)

// CheckError is a partition of a C1 output that does not satisfy the circuit:
// an unsatisfied constraint, or public inputs the circuit allocates that
// differ from those a verifier derives.
type CheckError struct {
	Partition  int
	Challenge  int    // the challenge whose share failed
	Constraint int    // index in the partition's circuit, enforce order; -1 for an input mismatch
	Path       string // the constraint's namespace path ("challenge_3/..."), or what input differs
}

func (e *CheckError) Error() string {
	if e.Constraint < 0 {
		return fmt.Sprintf("porep: partition %d challenge %d: %s", e.Partition, e.Challenge, e.Path)
	}
	return fmt.Sprintf("porep: partition %d: constraint %d (%s) is not satisfied", e.Partition, e.Constraint, e.Path)
}

func asCheckError(err error, ce **CheckError) bool { return errors.As(err, ce) }

// CheckPartition synthesises partition k of c in Check mode and reports the
// first constraint it does not satisfy, as a *CheckError. The partition's
// challenges are independent sub-circuits below a shared top level, so each
// challenge's share — the top level and that challenge — is checked in its own
// System, on workers goroutines (≤ 0: GOMAXPROCS): together they enforce every
// constraint of the partition's circuit, and the index reported is the
// constraint's in the whole partition. The public inputs each share allocates
// must be the verifier's (PublicInputs). No key is needed.
func CheckPartition(ctx context.Context, c *c1.Commit1Out, k, workers int) error {
	if k < 0 || k >= len(c.VanillaProofs.Partitions) {
		return fmt.Errorf("porep: partition %d of %d", k, len(c.VanillaProofs.Partitions))
	}
	all := make([]int, len(c.VanillaProofs.Partitions[k]))
	for j := range all {
		all[j] = j
	}
	return CheckChallenges(ctx, c, k, all, workers)
}

// CheckChallenges is CheckPartition for the listed challenges of partition k
// only; the error is that of the lowest failing one in list order.
func CheckChallenges(ctx context.Context, c *c1.Commit1Out, k int, challenges []int, workers int) error {
	p, err := c.ProofType()
	if err != nil {
		return err
	}
	if k < 0 || k >= len(c.VanillaProofs.Partitions) {
		return fmt.Errorf("porep: partition %d of %d", k, len(c.VanillaProofs.Partitions))
	}
	in, err := PartitionInputFromC1(c, k)
	if err != nil {
		return err
	}
	for _, j := range challenges {
		if j < 0 || j >= len(in.Proofs) {
			return fmt.Errorf("porep: challenge %d of %d", j, len(in.Proofs))
		}
	}
	want, err := PublicInputs(p, c.ReplicaID, c.CommD, c.CommR, c.Seed, k)
	if err != nil {
		return err
	}
	shape := ShapeOf(p)
	one := shape
	one.Challenges = 1
	check := func(j int) error {
		sub := *in
		sub.Proofs = in.Proofs[j : j+1]
		cs := r1cs.New(r1cs.Check)
		top := 0
		err := Synthesize(cs, one, &sub, WithProgress(func(int, int) {}), withTopLevel(&top))
		if err == nil {
			err = cs.Finish()
		}
		var ue *r1cs.UnsatisfiedError
		if errors.As(err, &ue) {
			idx := ue.Index
			if idx >= top { // the challenge's own constraints, at its place in the partition
				per := cs.NumConstraints() - cs.NumInputs() - top
				idx += j * per
			}
			return &CheckError{Partition: k, Challenge: j, Constraint: idx, Path: fmt.Sprintf("challenge_%d%s", j, trimChallenge(ue.Path))}
		}
		if err != nil {
			return fmt.Errorf("porep: partition %d challenge %d: %w", k, j, err)
		}
		inputs, _ := cs.Assignment()
		got := inputs[1:]
		per := len(got) - 3
		if 3+len(in.Proofs)*per != len(want) {
			return fmt.Errorf("porep: partition %d: %d public inputs per challenge, the verifier has %d in all for %d challenges", k, per, len(want), len(in.Proofs))
		}
		for i := range got {
			w := i
			if i >= 3 {
				w = 3 + j*per + (i - 3)
			}
			if !got[i].Equal(&want[w]) {
				return &CheckError{Partition: k, Challenge: j, Constraint: -1,
					Path: fmt.Sprintf("public input %d is %s in the circuit, %s as the verifier derives it (from replica_id, comm_d, comm_r and the seed)", w, got[i].String(), want[w].String())}
			}
		}
		return nil
	}
	errs := make([]error, len(challenges))
	par.Each(len(challenges), workers, func(i int) {
		if ctx.Err() == nil {
			errs[i] = check(challenges[i])
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	return firstError(errs)
}

func firstError(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// trimChallenge drops the "challenge_0" namespace of a one-challenge share's
// path (the caller names the real challenge).
func trimChallenge(path string) string {
	const p = "challenge_0"
	switch {
	case path == p:
		return ""
	case len(path) > len(p) && path[:len(p)+1] == p+"/":
		return path[len(p):]
	case path == "":
		return " (top level)"
	}
	return " (top level: " + path + ")"
}
