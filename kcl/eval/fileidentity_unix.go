//go:build unix

package eval

import (
	"io/fs"
	"syscall"
)

// identityOf returns what changes whenever a regular file's content may have
// changed: size, modification and status-change times (the kernel sets ctime
// on every write; it cannot be set back), inode and device.
func identityOf(fi fs.FileInfo) (fileIdentity, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return fileIdentity{}, false
	}
	mtime, ctime := statTimes(st)
	return fileIdentity{
		size:  st.Size,
		mtime: mtime.Nano(),
		ctime: ctime.Nano(),
		ino:   uint64(st.Ino),
		dev:   uint64(st.Dev),
	}, true
}
