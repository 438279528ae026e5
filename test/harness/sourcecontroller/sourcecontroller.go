// Package sourcecontroller runs the real Flux source-controller (v1.9.6, built once from the
// Go module proxy by hack/e2e/build.sh into the cache outside the checkout) as a child
// process against a harness apiserver (test/harness/kube), with its artifact storage and
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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
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
	root, err := kube.RepoRoot()
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
	paths, err := HelmCRDFiles(ctx)
	if err != nil {
		return err
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: paths, ErrorIfPathMissing: true}); err != nil {
		return fmt.Errorf("installing the Helm source CRDs: %w", err)
	}
	return nil
}

// HelmCRDFiles returns the HelmRepository and HelmChart CRD files of the source-controller
// module hack/e2e/source-controller pins. `go mod download` fetches the module when the
// module cache lacks it (emptied, or another user's) while the binary is cached: `go list -m`
// would print no folder then.
func HelmCRDFiles(ctx context.Context) ([]string, error) {
	root, err := kube.RepoRoot()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", "github.com/fluxcd/source-controller")
	cmd.Dir = filepath.Join(root, "hack", "e2e", "source-controller")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("downloading the source-controller module: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var module struct{ Dir, Error string }
	if err := json.Unmarshal(out, &module); err != nil {
		return nil, fmt.Errorf("reading go mod download's answer: %w", err)
	}
	if module.Error != "" || module.Dir == "" {
		return nil, fmt.Errorf("downloading the source-controller module: %s", module.Error)
	}
	bases := filepath.Join(module.Dir, "config", "crd", "bases")
	var paths []string
	for _, kind := range []string{"helmrepositories", "helmcharts"} {
		paths = append(paths, filepath.Join(bases, "source.toolkit.fluxcd.io_"+kind+".yaml"))
	}
	return paths, nil
}

// startAttempts is how many sets of ports Start tries: a port found free may be taken by
// another process before source-controller binds it, and then it exits.
const startAttempts = 3

// Start builds the binary when needed, installs the CRDs it requires and runs it against
// env until it reports ready and serves artifacts.
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
	var errs []error
	for range startAttempts {
		sc, err := start(ctx, binary, env.Kubeconfig(), opts.Log)
		if err == nil {
			return sc, nil
		}
		errs = append(errs, err)
		var exited *exitedWhileStartingError
		if !errors.As(err, &exited) {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// exitedWhileStartingError is a process that ended before it served: often a port taken
// between finding it free and binding it.
type exitedWhileStartingError struct{ err error }

func (e *exitedWhileStartingError) Error() string {
	return fmt.Sprintf("source-controller exited while starting: %v", e.err)
}

func (e *exitedWhileStartingError) Unwrap() error { return e.err }

// start is one attempt: the process on fresh ports, waited for until /readyz answers and
// the artifact server serves a file of its storage (so the port is really its own).
func start(ctx context.Context, binary, kubeconfig string, log io.Writer) (*Controller, error) {
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
	probe := filepath.Base(storage) // unique: the storage folder's random name
	if err := os.WriteFile(filepath.Join(storage, probe), []byte(probe), 0o644); err != nil {
		_ = os.RemoveAll(storage)
		return nil, fmt.Errorf("writing the storage probe: %w", err)
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
	if log != nil {
		cmd.Stdout, cmd.Stderr = log, log
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
	err = sc.waitServing(ctx, "http://"+healthAddr+"/readyz", "http://"+storageAddr+"/"+probe, probe)
	if err != nil {
		_ = sc.Stop()
		return nil, err
	}
	_ = os.Remove(filepath.Join(storage, probe))
	return sc, nil
}

// Pid is the child's process id.
func (sc *Controller) Pid() int { return sc.cmd.Process.Pid }

// Done is closed when the process has ended.
func (sc *Controller) Done() <-chan struct{} { return sc.done }

// waitServing polls until the readiness endpoint answers 200 and the artifact server
// serves the probe file, or the process ends.
func (sc *Controller) waitServing(ctx context.Context, readyURL, probeURL, probe string) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	httpClient := &http.Client{Timeout: 5 * time.Second}
	ready := false
	for {
		select {
		case <-sc.done:
			return &exitedWhileStartingError{err: sc.waitErr}
		case <-ctx.Done():
			if !ready {
				return fmt.Errorf("source-controller not ready at %s: %w", readyURL, ctx.Err())
			}
			return fmt.Errorf("source-controller serves no artifacts at %s: %w", probeURL, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		if !ready {
			_, ready = get(httpClient, readyURL)
			continue
		}
		if body, ok := get(httpClient, probeURL); ok && string(body) == probe {
			return nil
		}
	}
}

// get returns the body of a 200 answer; ok is false for anything else.
func get(c *http.Client, url string) (body []byte, ok bool) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, 4096))
	return body, err == nil && resp.StatusCode == http.StatusOK
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

// freePorts finds n distinct free ports on 127.0.0.1. Where the kernel says which ports it
// hands out for outgoing connections and port 0, they are picked below that range, so the
// busy machine's own connections cannot take them before source-controller binds them.
func freePorts(n int) ([]int, error) {
	low, ok := ephemeralPortsStart()
	var ports []int
	seen := map[int]bool{}
	for tries := 0; len(ports) < n; tries++ {
		port := 0
		if ok && tries < 1000 {
			port = minFixedPort + rand.IntN(low-minFixedPort)
			if seen[port] {
				continue
			}
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			if port != 0 {
				continue // taken: try another
			}
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !seen[port] {
			seen[port] = true
			ports = append(ports, port)
		}
	}
	return ports, nil
}

// minFixedPort is the lowest port freePorts picks; below are well-known services.
const minFixedPort = 20000

// ephemeralPortsStart is the first port of the kernel's ephemeral range, when it is known
// and leaves room below it.
func ephemeralPortsStart() (int, bool) {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return 0, false
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil || low <= minFixedPort+1000 {
		return 0, false
	}
	return low, true
}
