//go:build unix

package plugin

import (
	"sync"

	"golang.org/x/sys/unix"
)

// GuardStdout points file descriptor 1 at stderr until the returned restore
// is called, so that whatever is written to stdout while the plugin starts
// (a cgo or CUDA library's printf, a stray fmt.Println) reaches the host's
// log instead of breaking the go-plugin handshake, which must be the first
// line on stdout. Call it first thing in the plugin process and restore just
// before Serve.
func GuardStdout() (restore func() error, err error) {
	saved, err := unix.Dup(1)
	if err != nil {
		return nil, err
	}
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(saved)
		return nil, err
	}
	var once sync.Once
	return func() error {
		once.Do(func() {
			err = unix.Dup2(saved, 1)
			unix.Close(saved)
		})
		return err
	}, nil
}
