//go:build !linux

package e2e

import "syscall"

// dieWithParent: only Linux can tie the child's life to ours.
func dieWithParent() *syscall.SysProcAttr { return nil }
