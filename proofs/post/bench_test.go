package post

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	s := Summarize(ms(5, 1, 3, 2, 4))
	if s.Min != time.Millisecond || s.Median != 3*time.Millisecond || s.Max != 5*time.Millisecond || s.P99 != 5*time.Millisecond {
		t.Errorf("%+v", s)
	}
	if s := Summarize(nil); s != (LatencySummary{}) {
		t.Errorf("empty: %+v", s)
	}
}
