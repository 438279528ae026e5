//go:build !linux

package fault

import "syscall"

func dieWithParent() *syscall.SysProcAttr { return nil }
