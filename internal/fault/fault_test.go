package fault

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestParseAndHit(t *testing.T) {
	in, err := Parse("section=2+4, corrupt=every:3, lost_for=5s")
	if err != nil {
		t.Fatal(err)
	}
	if in.LostFor() != 5*time.Second {
		t.Fatalf("lost_for %v", in.LostFor())
	}
	var sec, cor []bool
	for range 6 {
		sec = append(sec, in.Hit(Section))
		cor = append(cor, in.Hit(Corrupt))
	}
	want := func(got []bool, fire ...int) {
		t.Helper()
		for i, g := range got {
			w := false
			for _, f := range fire {
				w = w || f == i+1
			}
			if g != w {
				t.Fatalf("call %d fired %v, want %v (%v)", i+1, g, w, got)
			}
		}
	}
	want(sec, 2, 4)
	want(cor, 3, 6)
	if in.Hit(Alloc) || in.Has(Alloc) {
		t.Fatal("alloc has no term but fired")
	}
	c := in.Counts()
	if c[Section] != (Count{Calls: 6, Hits: 2}) || c[Corrupt] != (Count{Calls: 6, Hits: 2}) {
		t.Fatalf("counts %+v", c)
	}
	if got := in.Report(); got != "section 2/6, corrupt 2/6" {
		t.Fatalf("report %q", got)
	}
}

func TestRateIsSeeded(t *testing.T) {
	run := func(spec string) (hits int) {
		in, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		for range 10000 {
			if in.Hit(Section) {
				hits++
			}
		}
		return hits
	}
	a, b := run("section=rate:0.1,seed=7"), run("section=rate:0.1,seed=7")
	if a != b {
		t.Fatalf("same seed, %d and %d hits", a, b)
	}
	if a < 800 || a > 1200 {
		t.Fatalf("rate 0.1 fired %d of 10000", a)
	}
}

func TestParseErrors(t *testing.T) {
	for _, spec := range []string{"", "section", "bogus=1", "section=0", "section=every:0", "section=rate:0",
		"section=rate:1.5", "section=1,section=2", "seed=x", "lost_for=-1s", "section=1+x"} {
		if _, err := Parse(spec); err == nil {
			t.Errorf("Parse(%q) accepted", spec)
		}
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	if Hit(ctx, Section) || From(ctx) != nil {
		t.Fatal("a context without an injector fired")
	}
	in, _ := Parse("section=1")
	ctx = With(ctx, in)
	if !Hit(ctx, Section) || Hit(ctx, Section) {
		t.Fatal("want the first call only")
	}
	if err := Errorf(Section, "kernel %d", 3); !errors.Is(err, ErrInjected) {
		t.Fatal(err)
	}
	var nilIn *Injector
	if nilIn.Hit(Lost) || len(nilIn.Counts()) != 0 {
		t.Fatal("nil injector fired")
	}
}
