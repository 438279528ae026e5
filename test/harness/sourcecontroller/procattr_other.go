//go:build !linux

package sourcecontroller

import "syscall"

// dieWithParent: only Linux can tie the child's life to its parent's.
func dieWithParent() *syscall.SysProcAttr { return nil }
