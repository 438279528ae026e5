package splitservices

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// Tests is what a process-level suite's TestMain started; all its tests share it.
// Under -short nothing is started and Skip says why (Suite is nil).
type Tests struct {
	Skip string
	*Suite
}

// RunTests is such a suite's TestMain: under -short it runs the tests with t.Skip set
// to short; otherwise it starts the apiserver and builds pkgs first and stops both
// after. It returns the exit code; name prefixes a start-up error.
func RunTests(m *testing.M, t *Tests, name, short string, pkgs ...string) int {
	flag.Parse()
	if testing.Short() {
		t.Skip = short
		return m.Run()
	}
	ctrllog.SetLogger(logr.Discard())
	s, err := Start(context.Background(), pkgs...)
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		return 1
	}
	defer func() { _ = s.Stop() }()
	t.Suite = s
	return m.Run()
}
