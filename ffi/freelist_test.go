package ffi

import "testing"

// A freeList hands back what it kept, last in first out, keeps at most max, and once
// closed returns what it held and keeps nothing more.
func TestFreeList(t *testing.T) {
	l := freeList[int]{max: 2}
	if _, ok, closed := l.take(); ok || closed {
		t.Fatalf("empty list: ok %v closed %v", ok, closed)
	}
	for _, v := range []int{1, 2} {
		if !l.put(v) {
			t.Fatalf("put %d refused", v)
		}
	}
	if l.put(3) {
		t.Fatal("a full list kept a third value")
	}
	if v, ok, _ := l.take(); !ok || v != 2 {
		t.Fatalf("take: %d %v, want 2", v, ok)
	}
	if kept := l.close(); len(kept) != 1 || kept[0] != 1 {
		t.Fatalf("close returned %v, want [1]", kept)
	}
	if _, ok, closed := l.take(); ok || !closed {
		t.Fatalf("closed list: ok %v closed %v", ok, closed)
	}
	if l.put(4) || l.len() != 0 {
		t.Fatal("a closed list kept a value")
	}
}
