package e2e

import "syscall"

// dieWithParent has the kernel kill the child when the test binary dies, so a
// crashed run leaves no source-controller behind.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
