// Package atomicfile writes files so that the final name only ever holds a
// complete file: data goes to a temporary file in the same directory, which is
// synced and renamed over the final name on Commit, and removed on Abort.
// What is not a regular file is never renamed over: a device, a pipe or a
// socket (or a symbolic link to one, as /dev/stdout) is written in place, a
// symbolic link to a regular file has its target replaced, and a directory is
// refused.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is a file being written under a temporary name.
type File struct {
	f      *os.File
	w      *bufio.Writer
	path   string
	done   bool
	perm   os.FileMode
	direct bool // writing an existing non-regular file in place
}

// Create starts writing path. Nothing appears under path until Commit. It
// fails at once where path cannot be written (no such directory, no
// permission, a directory), so that a caller can check its output before long
// work.
func Create(path string, perm os.FileMode) (*File, error) {
	target := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
	}
	switch fi, err := os.Stat(target); {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("create %s: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		return &File{f: f, w: bufio.NewWriterSize(f, 1<<16), path: path, perm: perm, direct: true}, nil
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{f: f, w: bufio.NewWriterSize(f, 1<<20), path: target, perm: perm}, nil
}

// Write writes to the temporary file.
func (a *File) Write(p []byte) (int, error) { return a.w.Write(p) }

// Commit flushes, syncs and renames the file to its final name.
func (a *File) Commit() error {
	if a.done {
		return fmt.Errorf("write %s: already closed", a.path)
	}
	a.done = true
	err := a.w.Flush()
	if a.direct {
		if cerr := a.f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", a.path, err)
		}
		return nil
	}
	if err == nil {
		err = a.f.Chmod(a.perm)
	}
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	return nil
}

// Abort removes the temporary file; it is a no-op after Commit.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	if !a.direct {
		os.Remove(a.f.Name())
	}
}

// Write writes path atomically with the bytes that fill produces.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	a, err := Create(path, perm)
	if err != nil {
		return err
	}
	if err := fill(a); err != nil {
		a.Abort()
		return err
	}
	return a.Commit()
}
