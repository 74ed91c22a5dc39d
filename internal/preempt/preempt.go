// Package preempt carries preemption points through a context: a long GPU
// section (ffi's kernel section) calls Point between its kernels, and the
// scheduler that holds the GPU for it (the engine) may there lend the GPU to
// more urgent work and take it back before Point returns.
package preempt

import "context"

type key struct{}

// With returns ctx carrying f, called at each Point (never concurrently
// with itself for one section: a section's kernels run one after another).
func With(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, key{}, f)
}

// Point is a preemption point: it calls the function With put in ctx, if
// any, and returns when that does.
func Point(ctx context.Context) {
	if f, ok := ctx.Value(key{}).(func()); ok && f != nil {
		f()
	}
}
