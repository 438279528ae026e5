package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"syscall"

	"github.com/go-logr/logr"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/allinone"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// startController runs the all-in-one process in this process, with its NATS server on a
// free port so the URL can be printed and used. done reports its end once ctx ends.
func startController(ctx context.Context, env *kube.Env, log logr.Logger) (natsURL string, done <-chan error, err error) {
	cfg := allinone.DefaultConfig()
	cfg.NATSAddr = "127.0.0.1:0"
	cfg.MetricsAddr, cfg.HealthAddr = "", ""
	proc, err := allinone.New(cfg, allinone.Deps{RestConfig: env.Config, Logger: log})
	if err != nil {
		return "", nil, fmt.Errorf("all-in-one controller: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- proc.Run(ctx) }()
	select {
	case <-proc.Started():
		fmt.Println("  in this process (cmd/flux-kcl-controller/allinone); DEMO_CONTROLLER_BIN=bin/flux-kcl-controller runs the binary instead")
		return proc.NATSURL(), ended, nil
	case err := <-ended:
		if err == nil {
			err = errors.New("stopped before starting")
		}
		return "", nil, fmt.Errorf("all-in-one controller: %w", err)
	}
}

// execController runs "<bin> all-in-one" against the demo apiserver, its output to log; it
// is stopped with SIGTERM when ctx ends.
func execController(ctx context.Context, bin string, env *kube.Env, log io.Writer) (natsURL string, done <-chan error, err error) {
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
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	fmt.Printf("  %s all-in-one (pid %d)\n", bin, cmd.Process.Pid)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := make(chan error, 1)
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			stopped <- <-exited
		case err := <-exited:
			if err == nil {
				err = errors.New("exited")
			}
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
