package kube

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// guardBinaries returns a folder of wrappers that start kube-apiserver and etcd with a
// parent-death signal, so that a test binary that dies without Stop (a panic, a go test
// timeout, a kill) does not leave them running on a shared machine. Without setpriv the
// binaries are used as they are. The caller removes the folder returned when it differs
// from assets.
func guardBinaries(assets string) (string, error) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		return assets, nil
	}
	dir, err := os.MkdirTemp("", "kube-harness-bin-")
	if err != nil {
		return "", fmt.Errorf("creating wrapper dir: %w", err)
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		script := "#!/bin/sh\nexec " + strconv.Quote(setpriv) + " --pdeathsig KILL -- " +
			strconv.Quote(filepath.Join(assets, name)) + ` "$@"` + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			_ = os.RemoveAll(dir)
			return "", fmt.Errorf("writing %s wrapper: %w", name, err)
		}
	}
	return dir, nil
}
