//go:build darwin || ios || freebsd || netbsd

package eval

import "syscall"

// statTimes are a stat's modification and status-change times; these systems
// name them Mtimespec and Ctimespec.
func statTimes(st *syscall.Stat_t) (mtime, ctime syscall.Timespec) {
	return st.Mtimespec, st.Ctimespec
}
