package e2e

import (
	"context"
	"errors"
	"flag"
	"fmt"
	stdlog "log"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/allinone"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/gitserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/sourcecontroller"
)

// suite is what TestMain started; the stories share it.
var suite struct {
	// skip is the reason every story skips; empty when the suite runs.
	skip string
	env  *kube.Env
	git  *gitserver.Server
	// sourceController is the running source-controller; a story stops waiting if it ends.
	sourceController *sourcecontroller.Controller
	// logDir holds the controllers' logs.
	logDir string
}

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	flag.Parse()
	if testing.Short() { // make test-unit: pure logic only
		suite.skip = "-short: the suite starts an apiserver, source-controller and a Git server"
		return m.Run()
	}
	if _, err := exec.LookPath("git"); err != nil {
		suite.skip = "git is not installed: the local Git server needs it"
		return m.Run()
	}
	logDir, err := os.MkdirTemp("", "flux-kcl-e2e-logs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	suite.logDir = logDir
	code := 1
	defer func() {
		if code == 0 {
			_ = os.RemoveAll(logDir)
		} else {
			fmt.Fprintf(os.Stderr, "e2e: controller logs kept in %s\n", logDir)
		}
	}()
	stop, err := startSuite(logDir)
	defer stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return code
	}
	code = m.Run()
	return code
}

// startSuite starts every part; the returned stop tears down whatever started,
// in reverse order, even after an error.
func startSuite(logDir string) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	ctx := context.Background()

	controllerLog, err := os.Create(filepath.Join(logDir, "flux-kcl-controller.log"))
	if err != nil {
		return stop, fmt.Errorf("creating the controller log: %w", err)
	}
	stops = append(stops, func() { _ = controllerLog.Close() })
	log := zap.New(zap.WriteTo(controllerLog))
	ctrl.SetLogger(log)

	started := time.Now()
	binary, err := sourcecontroller.Build(ctx)
	if err != nil {
		return stop, err
	}
	fmt.Fprintf(os.Stderr, "e2e: source-controller %s ready in %s\n", binary, time.Since(started).Round(time.Millisecond))

	env, err := kube.Start(ctx)
	if err != nil {
		return stop, err
	}
	stops = append(stops, func() { _ = env.Stop() })
	suite.env = env

	// The Git server logs every request through the standard logger.
	gitLog, err := os.Create(filepath.Join(logDir, "git-server.log"))
	if err != nil {
		return stop, fmt.Errorf("creating the Git server log: %w", err)
	}
	stops = append(stops, func() { stdlog.SetOutput(os.Stderr); _ = gitLog.Close() })
	stdlog.SetOutput(gitLog)
	git, err := gitserver.Start()
	if err != nil {
		return stop, err
	}
	stops = append(stops, git.Stop)
	suite.git = git

	scLog, err := os.Create(filepath.Join(logDir, "source-controller.log"))
	if err != nil {
		return stop, fmt.Errorf("creating the source-controller log: %w", err)
	}
	stops = append(stops, func() { _ = scLog.Close() })
	sc, err := sourcecontroller.Start(ctx, env, sourcecontroller.Options{Binary: binary, Log: scLog})
	if err != nil {
		return stop, fmt.Errorf("%w (log: %s)", err, scLog.Name())
	}
	suite.sourceController = sc
	stops = append(stops, func() {
		if err := sc.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
		}
	})

	storage, err := os.MkdirTemp("", "flux-kcl-e2e-storage-")
	if err != nil {
		return stop, fmt.Errorf("creating the artifact storage: %w", err)
	}
	stops = append(stops, func() { _ = os.RemoveAll(storage) })
	stopController, err := startController(env, log, storage)
	if err != nil {
		return stop, err
	}
	stops = append(stops, stopController)
	return stop, nil
}

// startController runs the all-in-one process in this process, publishing the
// artifacts of spec.output.mode ExternalArtifact from storage on loopback; the
// returned func stops it and waits.
func startController(env *kube.Env, log logr.Logger, storage string) (func(), error) {
	cfg := allinone.DefaultConfig()
	cfg.NATSAddr = "" // in-process connections only
	cfg.MetricsAddr, cfg.HealthAddr = "", ""
	cfg.Applier.StoragePath, cfg.Applier.StorageAddr = storage, "127.0.0.1:0"
	proc, err := allinone.New(cfg, allinone.Deps{RestConfig: env.Config, Logger: log})
	if err != nil {
		return func() {}, fmt.Errorf("all-in-one controller: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- proc.Run(ctx) }()
	stop := func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "e2e: all-in-one controller:", err)
		}
	}
	select {
	case <-proc.Started():
		return stop, nil
	case err := <-done:
		cancel()
		return func() {}, fmt.Errorf("all-in-one controller stopped before starting: %w", err)
	}
}

// requireSuite skips t when the suite cannot run here.
func requireSuite(t *testing.T) {
	t.Helper()
	if suite.skip != "" {
		t.Skip(suite.skip)
	}
}
