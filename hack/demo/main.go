// Command demo shows flux-kcl-controller end to end on this machine: a local
// kube-apiserver, the demo KCL program served as a GitRepository artifact, the
// all-in-one controller, and a KCLRun that deploys nginx.
//
//	go run ./hack/demo              keeps running until interrupted
//	DEMO_EXIT=1 go run ./hack/demo  exits 0 once the KCLRun is Ready (CI)
//
// The controller runs in this process (internal/allinone), or, with
// DEMO_CONTROLLER_BIN=bin/flux-kcl-controller, as that binary's all-in-one
// command in a child process.
package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/allinone"
	"github.com/kcl-lang/flux-kcl-controller/internal/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/internal/harness/kube"
)

//go:embed program
var program embed.FS

const (
	namespace = "demo"
	name      = "nginx"
	// readyTimeout bounds the wait for the KCLRun; the machine may be busy.
	readyTimeout = 5 * time.Minute
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := zap.New(zap.UseDevMode(false), zap.WriteTo(os.Stderr))
	ctrl.SetLogger(log)

	step("starting kube-apiserver and etcd")
	env, err := kube.Start(ctx)
	if err != nil {
		return err
	}
	defer env.Stop()
	fmt.Printf("  kubeconfig: %s\n", env.Kubeconfig())

	step("serving the demo program as a GitRepository artifact")
	artifacts, err := artifactserver.Start()
	if err != nil {
		return err
	}
	defer artifacts.Close()
	files, err := programFiles()
	if err != nil {
		return err
	}
	artifact, err := artifacts.PublishFiles(artifactserver.ArtifactPath("GitRepository", namespace, name, ""), files, "")
	if err != nil {
		return err
	}
	fmt.Printf("  artifact: %s (%s)\n", artifact.URL, artifact.Revision)
	c := env.Client
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", namespace, err)
	}
	if _, err := artifactserver.CreateSource(ctx, c, "GitRepository", namespace, name, artifact); err != nil {
		return err
	}

	step("starting the all-in-one controller")
	var natsURL string
	var done <-chan error
	if bin := os.Getenv("DEMO_CONTROLLER_BIN"); bin != "" {
		natsURL, done, err = execController(ctx, bin, env)
	} else {
		natsURL, done, err = startController(ctx, env, log)
	}
	if err != nil {
		return err
	}
	fmt.Printf("  NATS: %s\n", natsURL)

	step("applying KCLRun " + namespace + "/" + name)
	run := &kclv1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: kclv1.KCLRunSpec{
			SourceRef:       kclv1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: name},
			Interval:        metav1.Duration{Duration: 10 * time.Minute},
			Prune:           true,
			TargetNamespace: namespace,
		},
	}
	if err := c.Create(ctx, run); err != nil {
		return fmt.Errorf("creating KCLRun: %w", err)
	}

	step("waiting for the Deployment and for the KCLRun to be Ready")
	var deployment appsv1.Deployment
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, readyTimeout, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-done:
			return false, fmt.Errorf("controller stopped: %w", err)
		default:
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(run), run); err != nil {
			return false, nil
		}
		if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "nginx-deployment"}, &deployment); err != nil {
			return false, nil
		}
		return apimeta.IsStatusConditionTrue(run.Status.Conditions, meta.ReadyCondition), nil
	})
	if err != nil {
		if ready := apimeta.FindStatusCondition(run.Status.Conditions, meta.ReadyCondition); ready != nil {
			return fmt.Errorf("KCLRun not Ready (%s: %s): %w", ready.Reason, ready.Message, err)
		}
		return fmt.Errorf("KCLRun not Ready: %w", err)
	}
	for _, obj := range []client.Object{run, &deployment} {
		if err := show(c, obj); err != nil {
			return err
		}
	}

	if os.Getenv("DEMO_EXIT") == "1" {
		step("done (DEMO_EXIT=1)")
		stop()
		<-done
		return nil
	}
	step("running; try: KUBECONFIG=" + env.Kubeconfig() + " kubectl get kclruns,deployments,services -n " + namespace)
	fmt.Println("  press Ctrl-C to stop")
	<-ctx.Done()
	<-done
	return nil
}

// startController runs the all-in-one process in this process, with its
// NATS server on a free port so the URL can be printed and used.
func startController(ctx context.Context, env *kube.Env, log logr.Logger) (string, <-chan error, error) {
	cfg := allinone.DefaultConfig()
	cfg.NATSAddr = "127.0.0.1:0"
	cfg.MetricsAddr, cfg.HealthAddr = "", ""
	proc, err := allinone.New(cfg, allinone.Deps{RestConfig: env.Config, Logger: log})
	if err != nil {
		return "", nil, err
	}
	done := make(chan error, 1)
	go func() { done <- proc.Run(ctx) }()
	select {
	case <-proc.Started():
		return proc.NATSURL(), done, nil
	case err := <-done:
		if err == nil {
			err = errors.New("stopped before starting")
		}
		return "", nil, fmt.Errorf("all-in-one controller: %w", err)
	}
}

// execController runs "<bin> all-in-one" against the demo apiserver; it is
// stopped with SIGTERM when ctx ends.
func execController(ctx context.Context, bin string, env *kube.Env) (string, <-chan error, error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "all-in-one",
		"--kubeconfig="+env.Kubeconfig(),
		"--nats-addr="+addr,
		"--metrics-addr=", "--health-addr=",
		"--log-encoding=console")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	fmt.Printf("  controller: %s all-in-one (pid %d)\n", bin, cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopped := make(chan error, 1)
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			stopped <- <-done
		case err := <-done:
			stopped <- err
		}
	}()
	return "nats://" + addr, stopped, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// programFiles reads the embedded program as artifact files.
func programFiles() (map[string]string, error) {
	files := map[string]string{}
	err := fs.WalkDir(program, "program", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := program.ReadFile(path)
		if err != nil {
			return err
		}
		files[path[len("program/"):]] = string(data)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the demo program: %w", err)
	}
	return files, nil
}

// show prints obj as kubectl get -o yaml would, without managed fields.
func show(c client.Client, obj client.Object) error {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return fmt.Errorf("printing %T: %w", obj, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	obj.SetManagedFields(nil)
	data, err := yaml.Marshal(obj)
	if err != nil {
		return fmt.Errorf("printing %s: %w", gvk.Kind, err)
	}
	fmt.Printf("--- %s %s/%s\n%s", gvk.Kind, obj.GetNamespace(), obj.GetName(), data)
	return nil
}

func step(msg string) { fmt.Printf("==> %s\n", msg) }
