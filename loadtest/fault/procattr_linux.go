package fault

import "syscall"

// dieWithParent has the kernel kill the child when the process that started it dies, so a
// crashed test or driver leaves no controller behind.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
