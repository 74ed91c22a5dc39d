package groth16

import (
	"context"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// msmG1 is Σ scalars[i]·points[i] over G1 by gnark-crypto's Pippenger.
func msmG1(out *bls.G1Jac, points []bls.G1Affine, scalars []fr.Element, tasks int) error {
	if len(points) == 0 {
		out.X.SetOne()
		out.Y.SetOne()
		out.Z.SetZero()
		return nil
	}
	_, err := out.MultiExp(points, scalars, ecc.MultiExpConfig{NbTasks: tasks})
	return err
}

// msmG2 is msmG1 over G2.
func msmG2(out *bls.G2Jac, points []bls.G2Affine, scalars []fr.Element, tasks int) error {
	if len(points) == 0 {
		out.X.SetOne()
		out.Y.SetOne()
		out.Z.SetZero()
		return nil
	}
	_, err := out.MultiExp(points, scalars, ecc.MultiExpConfig{NbTasks: tasks})
	return err
}

// splitMSM computes Σ scalars[i]·points[i] where most scalars are 0 or 1: zeros
// are skipped, ones are summed by plain additions, and only the rest go through
// Pippenger. Witnesses of SHA-256-heavy circuits are ~98% zeros and ones.
func splitMSM[A, J any, G groupOps[A, J]](ctx context.Context, out *J, points []A, scalars []fr.Element,
	tasks int, msm func(*J, []A, []fr.Element, int) error) error {
	var ops G
	if tasks <= 0 {
		tasks = runtime.GOMAXPROCS(0)
	}
	n := len(scalars)
	chunk := max((n+tasks-1)/tasks, 1)
	type part struct {
		ones   J
		any    bool
		points []A
		scal   []fr.Element
	}
	parts := make([]part, (n+chunk-1)/chunk)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &parts[k]
			ops.setInfinity(&p.ones)
			for i := k * chunk; i < min(n, (k+1)*chunk); i++ {
				s := &scalars[i]
				switch {
				case s.IsZero():
				case s.IsOne():
					if p.any {
						ops.addMixed(&p.ones, &points[i])
					} else {
						ops.fromAffine(&p.ones, &points[i])
						p.any = true
					}
				default:
					p.points = append(p.points, points[i])
					p.scal = append(p.scal, *s)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	var rest []A
	var restS []fr.Element
	ops.setInfinity(out)
	for k := range parts {
		if parts[k].any {
			ops.add(out, &parts[k].ones)
		}
		rest = append(rest, parts[k].points...)
		restS = append(restS, parts[k].scal...)
	}
	if len(rest) > 0 {
		var tail J
		if err := msm(&tail, rest, restS, tasks); err != nil {
			return err
		}
		ops.add(out, &tail)
	}
	return nil
}

func splitMSMG1(ctx context.Context, out *bls.G1Jac, points []bls.G1Affine, scalars []fr.Element, tasks int) error {
	return splitMSM[bls.G1Affine, bls.G1Jac, g1Ops](ctx, out, points, scalars, tasks, msmG1)
}

func splitMSMG2(ctx context.Context, out *bls.G2Jac, points []bls.G2Affine, scalars []fr.Element, tasks int) error {
	return splitMSM[bls.G2Affine, bls.G2Jac, g2Ops](ctx, out, points, scalars, tasks, msmG2)
}
