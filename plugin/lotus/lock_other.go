//go:build !unix

package lotus

import "os"

// tryLock does nothing on this platform: keeping two workers off one calls
// file is then up to the operator.
func tryLock(*os.File) error { return nil }
