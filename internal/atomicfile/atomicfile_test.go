package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func write(path, s string) error {
	return Write(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
}

func TestWriteRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := write(p, "one"); err != nil {
		t.Fatal(err)
	}
	if err := write(p, "two"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Fatalf("got %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left %d entries, want the file alone", len(ents))
	}
}

// An aborted write leaves nothing behind, and a failed fill neither.
func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := Write(p, 0o644, func(w io.Writer) error { return io.ErrUnexpectedEOF }); err == nil {
		t.Fatal("a failing fill succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a failed write left %v", ents)
	}
}

// Where the output cannot be written, Create says so before any work.
func TestCreateFailsEarly(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "no", "such", "dir"), dir} {
		if f, err := Create(p, 0o644); err == nil {
			f.Abort()
			t.Fatalf("Create(%s) succeeded", p)
		}
	}
}

// A symbolic link to a regular file stays a link; its target is replaced.
func TestSymlinkToRegular(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := write(link, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}
}

// A pipe and a device are written in place, never renamed over (the outside
// probe's --out /dev/null, --out /dev/stdout).
func TestNonRegularWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo here:", err) // the /dev/null case below still runs
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := write(fifo, "through the pipe"); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
	link := filepath.Join(dir, "null")
	if err := os.Symlink(os.DevNull, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{os.DevNull, link} {
		if err := write(p, strings.Repeat("x", 100)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if fi, err := os.Lstat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, fi.Mode(), err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link to %s was replaced: %v", os.DevNull, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("left %d entries in the directory, want the pipe and the link", len(ents))
	}
}
