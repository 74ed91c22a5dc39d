package paramcache

import (
	"io/fs"
	"syscall"
)

// statExtra returns the inode and change time (ns) of fi, 0 when unknown.
func statExtra(fi fs.FileInfo) (inode uint64, ctimeNS int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ino, st.Ctim.Nano()
}
