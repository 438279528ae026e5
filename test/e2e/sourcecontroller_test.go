package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kcl-lang/flux-kcl-controller/internal/harness/kube"
)

// sourceControllerStartTimeout bounds the wait for /readyz; the machine may be busy.
const sourceControllerStartTimeout = 3 * time.Minute

// repoRoot is the checkout's root: this package lives in test/e2e.
func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("locating the source folder")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
}

// buildSourceController runs hack/e2e/build.sh, which builds the binary once
// and prints its path.
func buildSourceController(ctx context.Context) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, filepath.Join(root, "hack", "e2e", "build.sh"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("hack/e2e/build.sh: %w: %s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		fmt.Fprint(os.Stderr, stderr.String()) // the build time, when it built
	}
	return strings.TrimSpace(stdout.String()), nil
}

// installSourceControllerCRDs adds the kinds source-controller watches beside
// the ones the harness installs (HelmRepository, HelmChart): it will not start
// without them. They come from the source-controller module the build used.
func installSourceControllerCRDs(ctx context.Context, env *kube.Env) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/fluxcd/source-controller")
	cmd.Dir = filepath.Join(root, "hack", "e2e", "source-controller")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("locating the source-controller module: %w", err)
	}
	bases := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "bases")
	var paths []string
	for _, kind := range []string{"helmrepositories", "helmcharts"} {
		paths = append(paths, filepath.Join(bases, "source.toolkit.fluxcd.io_"+kind+".yaml"))
	}
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true}); err != nil {
		return fmt.Errorf("installing the Helm source CRDs: %w", err)
	}
	return nil
}

// sourceController is the running child process.
type sourceController struct {
	cmd  *exec.Cmd
	done chan error
}

// startSourceController runs the binary against the apiserver with storage and
// endpoints on free loopback ports, and waits until it reports ready.
func startSourceController(binary, kubeconfig, logDir string) (*sourceController, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	storageAddr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	healthAddr := fmt.Sprintf("127.0.0.1:%d", ports[2])
	storage, err := os.MkdirTemp("", "flux-kcl-e2e-storage-")
	if err != nil {
		return nil, fmt.Errorf("creating the artifact storage: %w", err)
	}
	logFile, err := os.Create(filepath.Join(logDir, "source-controller.log"))
	if err != nil {
		return nil, fmt.Errorf("creating the source-controller log: %w", err)
	}
	cmd := exec.Command(binary,
		"--storage-path="+storage,
		"--storage-addr="+storageAddr,
		"--storage-adv-addr="+storageAddr,
		"--enable-leader-election=false",
		"--watch-all-namespaces",
		fmt.Sprintf("--metrics-addr=127.0.0.1:%d", ports[1]),
		"--health-addr="+healthAddr,
		"--log-level=debug",
	)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting source-controller: %w", err)
	}
	sc := &sourceController{cmd: cmd, done: make(chan error, 1)}
	go func() {
		sc.done <- cmd.Wait()
		_ = logFile.Close()
		_ = os.RemoveAll(storage)
	}()
	if err := sc.waitReady("http://" + healthAddr + "/readyz"); err != nil {
		sc.stop()
		return nil, fmt.Errorf("%w (log: %s)", err, logFile.Name())
	}
	return sc, nil
}

// waitReady polls the readiness endpoint until it answers 200 or the process ends.
func (sc *sourceController) waitReady(url string) error {
	deadline := time.Now().Add(sourceControllerStartTimeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-sc.done:
			sc.done <- err
			return fmt.Errorf("source-controller exited while starting: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
		resp, err := http.Get(url)
		if err != nil {
			continue
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
	}
	return fmt.Errorf("source-controller not ready at %s after %s", url, sourceControllerStartTimeout)
}

// stop ends the process with SIGTERM (SIGKILL after a grace period) and waits.
func (sc *sourceController) stop() {
	_ = sc.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-sc.done:
	case <-time.After(30 * time.Second):
		_ = sc.cmd.Process.Kill()
		<-sc.done
	}
}

// freePorts finds n distinct free ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
