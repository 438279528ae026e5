//go:build unix && !(darwin || ios || freebsd || netbsd)

package eval

import "syscall"

// statTimes are a stat's modification and status-change times (Mtim and Ctim here;
// the BSDs and Darwin spell them Mtimespec and Ctimespec).
func statTimes(st *syscall.Stat_t) (mtime, ctime syscall.Timespec) {
	return st.Mtim, st.Ctim
}
