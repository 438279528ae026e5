package install_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// releaseNamespace is where the documented commands install: flux-system.
const releaseNamespace = "flux-system"

// The package shares one apiserver; extraCRDs holds the generated Alert, Receiver and
// HelmRelease CRDs (crds.sh), installed by the tests that need them.
var (
	env       *kube.Env
	repoRoot  string
	extraCRDs string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	ctrllog.SetLogger(funcr.New(func(string, string) {}, funcr.Options{}))
	ctx := context.Background()
	_, file, _, _ := runtime.Caller(0)
	here := filepath.Dir(file)
	repoRoot = filepath.Join(here, "..", "..")
	if testing.Short() {
		return m.Run() // rendering only: the tests needing the apiserver skip
	}
	out, err := exec.CommandContext(ctx, "bash", filepath.Join(here, "crds.sh")).Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "generating the Alert, Receiver and HelmRelease CRDs:", err)
		return 1
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	extraCRDs = lines[len(lines)-1]

	if env, err = kube.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: releaseNamespace}}
	if err := env.Client.Create(ctx, ns); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// needsAPIServer skips a test under -short (make test-unit), where no apiserver runs.
func needsAPIServer(t *testing.T) {
	t.Helper()
	if env == nil {
		t.Skip("needs the apiserver (not started under -short)")
	}
}
