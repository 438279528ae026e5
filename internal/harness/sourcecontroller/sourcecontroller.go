// Package sourcecontroller runs the real Flux source-controller (v1.9.6, built once from the
// Go module proxy by hack/e2e/build.sh into the cache outside the checkout) as a child
// process against a harness apiserver (internal/harness/kube), with its artifact storage and
// endpoints on free 127.0.0.1 ports.
//
//	sc, err := sourcecontroller.Start(ctx, env, sourcecontroller.Options{Log: logFile})
//	defer sc.Stop()
//	err = sourcecontroller.RequestReconcile(ctx, env.Client, gitRepository) // as `flux reconcile source git` does
//
// Start installs the HelmRepository and HelmChart CRDs beside the source kinds the harness
// installs (source-controller will not start without them), starts the binary with every
// namespace watched and no leader election, and returns once /readyz answers. On Linux the
// kernel kills the child when the starting process dies, so a crashed run leaves no
// source-controller behind. The suite in test/e2e and the demo in hack/demo use it.
package sourcecontroller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kcl-lang/flux-kcl-controller/internal/harness/kube"
)

// startTimeout bounds the wait for /readyz; the machine may be busy.
const startTimeout = 3 * time.Minute

// stopGrace is how long a SIGTERM may take before SIGKILL.
const stopGrace = 30 * time.Second

// Options tune Start; the zero value builds (or reuses) the binary and discards its log.
type Options struct {
	// Binary is the source-controller executable; empty runs Build.
	Binary string
	// Log receives the controller's output (debug level); nil discards it.
	Log io.Writer
}

// Controller is the running child process.
type Controller struct {
	// StorageAddr is where artifacts are served, host:port on 127.0.0.1.
	StorageAddr string
	// Binary is the executable that runs.
	Binary string

	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// Build runs hack/e2e/build.sh, which builds source-controller once into the cache, and
// returns the binary's path. A first build takes minutes; later calls return at once.
func Build(ctx context.Context) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "hack", "e2e", "build.sh"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("hack/e2e/build.sh: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if stderr.Len() > 0 {
		fmt.Fprint(os.Stderr, stderr.String()) // the build time, when it built
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	return lines[len(lines)-1], nil
}

// InstallCRDs adds the kinds source-controller watches beyond those a KCLRun may reference
// (HelmRepository, HelmChart), from the source-controller module the build used.
func InstallCRDs(ctx context.Context, cfg *rest.Config) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/fluxcd/source-controller")
	cmd.Dir = filepath.Join(root, "hack", "e2e", "source-controller")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("locating the source-controller module: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	bases := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "bases")
	var paths []string
	for _, kind := range []string{"helmrepositories", "helmcharts"} {
		paths = append(paths, filepath.Join(bases, "source.toolkit.fluxcd.io_"+kind+".yaml"))
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true}); err != nil {
		return fmt.Errorf("installing the Helm source CRDs: %w", err)
	}
	return nil
}

// Start builds the binary when needed, installs the CRDs it requires and runs it against
// env until it reports ready.
func Start(ctx context.Context, env *kube.Env, opts Options) (*Controller, error) {
	binary := opts.Binary
	if binary == "" {
		var err error
		if binary, err = Build(ctx); err != nil {
			return nil, err
		}
	}
	if err := InstallCRDs(ctx, env.Config); err != nil {
		return nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	storageAddr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	healthAddr := fmt.Sprintf("127.0.0.1:%d", ports[2])
	storage, err := os.MkdirTemp("", "source-controller-storage-")
	if err != nil {
		return nil, fmt.Errorf("creating the artifact storage: %w", err)
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
	cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig())
	if opts.Log != nil {
		cmd.Stdout, cmd.Stderr = opts.Log, opts.Log
	}
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(storage)
		return nil, fmt.Errorf("starting source-controller: %w", err)
	}
	sc := &Controller{StorageAddr: storageAddr, Binary: binary, cmd: cmd, done: make(chan struct{})}
	go func() {
		sc.waitErr = cmd.Wait()
		_ = os.RemoveAll(storage)
		close(sc.done)
	}()
	if err := sc.waitReady(ctx, "http://"+healthAddr+"/readyz"); err != nil {
		_ = sc.Stop()
		return nil, err
	}
	return sc, nil
}

// Pid is the child's process id.
func (sc *Controller) Pid() int { return sc.cmd.Process.Pid }

// Done is closed when the process has ended.
func (sc *Controller) Done() <-chan struct{} { return sc.done }

// waitReady polls the readiness endpoint until it answers 200 or the process ends.
func (sc *Controller) waitReady(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	httpClient := &http.Client{Timeout: 5 * time.Second}
	for {
		select {
		case <-sc.done:
			return fmt.Errorf("source-controller exited while starting: %v", sc.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("source-controller not ready at %s: %w", url, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		resp, err := httpClient.Get(url)
		if err != nil {
			continue
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
	}
}

// Stop ends the process with SIGTERM (SIGKILL after a grace period), waits for it and
// removes the artifact storage. It returns nil when the process ended on the signal.
func (sc *Controller) Stop() error {
	select {
	case <-sc.done:
		return sc.exitError()
	default:
	}
	_ = sc.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-sc.done:
	case <-time.After(stopGrace):
		_ = sc.cmd.Process.Kill()
		<-sc.done
	}
	return sc.exitError()
}

func (sc *Controller) exitError() error {
	var exit *exec.ExitError
	if errors.As(sc.waitErr, &exit) {
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() && status.Signal() == syscall.SIGTERM {
			return nil
		}
	}
	if sc.waitErr != nil {
		return fmt.Errorf("source-controller: %w", sc.waitErr)
	}
	return nil
}

// RequestReconcile sets the reconcile.fluxcd.io/requestedAt annotation on a source, as
// `flux reconcile source git` does, so source-controller fetches at once instead of at its
// next interval. obj is updated with the patched object.
func RequestReconcile(ctx context.Context, c client.Client, obj client.Object) error {
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[meta.ReconcileRequestAnnotation] = time.Now().Format(time.RFC3339Nano)
	obj.SetAnnotations(annotations)
	if err := c.Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("requesting a reconcile of %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
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

// repoRoot finds the checkout from this source file, or else upwards from the working dir,
// so the package works both in tests and in programs run from the checkout.
func repoRoot() (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if _, err := os.Stat(filepath.Join(dir, "hack", "e2e", "build.sh")); err == nil {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("cannot find the flux-kcl-controller checkout (hack/e2e) from %v", starts)
}
