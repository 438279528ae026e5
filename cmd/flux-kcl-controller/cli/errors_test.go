package cli_test

import (
	"testing"
)

// No cluster, no permission, a bad flag: one line, a non-zero exit, no stack trace.
func TestBadInput(t *testing.T) {
	setup(t)
	oneClearLine(t, run(t, "get", "kclruns", "--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify"), 1, "cannot reach the cluster")
	oneClearLine(t, run(t, "get", "kclruns", "-n", "default", "--as", "system:serviceaccount:default:nobody"), 1, "permission denied")
	oneClearLine(t, run(t, "reconcile", "kclrun", "web", "-n", "default", "--as", "system:serviceaccount:default:nobody"), 1, "permission denied")
	oneClearLine(t, run(t, "get", "kclruns", "-o", "table"), 1, `unsupported output format "table"`)
	oneClearLine(t, run(t, "get", "kclruns", "--status-selector", "ready"), 1, "type=status")
	oneClearLine(t, run(t, "reconcile", "kclrun"), 1, "accepts 1 arg(s)")
}
