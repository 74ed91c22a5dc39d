package par

// Gate bounds how many tasks run at once across every caller that shares it:
// a task calls Enter before its work and Leave after. A goroutine waiting in
// Enter is parked, so a process whose CPU-bound work goes through a Gate
// smaller than GOMAXPROCS keeps a P free for the goroutines outside it — a GPU
// worker returning from cgo then runs at once instead of queueing behind
// runnable work for a scheduler slice. A nil *Gate admits every task at once.
type Gate struct {
	slots chan struct{}
}

// NewGate returns a Gate that admits n tasks at once (at least 1).
func NewGate(n int) *Gate {
	return &Gate{slots: make(chan struct{}, max(n, 1))}
}

// Size is how many tasks g admits at once (0 for a nil Gate: no bound).
func (g *Gate) Size() int {
	if g == nil {
		return 0
	}
	return cap(g.slots)
}

// Enter waits for a slot of g.
func (g *Gate) Enter() {
	if g != nil {
		g.slots <- struct{}{}
	}
}

// Leave gives back the slot Enter took.
func (g *Gate) Leave() {
	if g != nil {
		<-g.slots
	}
}

// Do runs f inside g.
func (g *Gate) Do(f func()) {
	g.Enter()
	defer g.Leave()
	f()
}

// EachGated is Each with every f(i) run inside g: at most g.Size() of them at
// once, counting every other task that shares g.
func EachGated(n, workers int, g *Gate, f func(i int)) {
	if g == nil {
		Each(n, workers, f)
		return
	}
	Each(n, workers, func(i int) { g.Do(func() { f(i) }) })
}
