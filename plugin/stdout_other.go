//go:build !unix

package plugin

// GuardStdout does nothing on this platform.
func GuardStdout() (restore func() error, err error) { return func() error { return nil }, nil }
