package driver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/allinone"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// Modes of running flux-kcl-controller.
const (
	// ModeInProcess runs the all-in-one controller inside the driver (the smoke test); CPU
	// and memory then include the driver's own.
	ModeInProcess = "in-process"
	// ModeAllInOne runs bin/flux-kcl-controller all-in-one as one child process.
	ModeAllInOne = "all-in-one"
	// ModeSplit runs bin/{watcher,resolver,compiler,applier} as child processes around a
	// NATS server embedded in the driver.
	ModeSplit = "split"
)

// controller is a running flux-kcl-controller (or kustomize-controller) under measurement.
type controller struct {
	// pids names the measured processes.
	pids map[string]int
	// metrics are the Prometheus endpoints by process name.
	metrics map[string]string
	stop    func()
	// nats is the NATS server of split mode, which runs in the driver.
	nats *natsserver.Server
	// natsCluster replaces nats in split mode for the jetstream-cluster fault: three nodes
	// in the driver.
	natsCluster *natsserver.Cluster
}

// startKCL starts flux-kcl-controller in the configured mode and returns once it is ready.
func (d *driver) startKCL(ctx context.Context, cfg *rest.Config, kubeconfig string) (*controller, error) {
	switch d.opts.Mode {
	case ModeInProcess:
		return startInProcess(ctx, cfg)
	case ModeAllInOne:
		return d.startAllInOne(ctx, kubeconfig)
	case ModeSplit:
		return d.startSplit(ctx, kubeconfig)
	default:
		return nil, fmt.Errorf("unknown mode %q (in-process, all-in-one or split)", d.opts.Mode)
	}
}

func startInProcess(ctx context.Context, restCfg *rest.Config) (*controller, error) {
	metricsAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cfg := allinone.DefaultConfig()
	cfg.NATSAddr = "" // in-process connections only
	cfg.MetricsAddr, cfg.HealthAddr = metricsAddr, ""
	proc, err := allinone.New(cfg, allinone.Deps{RestConfig: restCfg, Logger: logr.Discard()})
	if err != nil {
		return nil, fmt.Errorf("all-in-one controller: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- proc.Run(runCtx) }()
	select {
	case <-proc.Started():
	case err := <-done:
		cancel()
		return nil, fmt.Errorf("all-in-one controller stopped before starting: %w", err)
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
	if err := waitHTTP(ctx, "http://"+metricsAddr+"/metrics"); err != nil {
		cancel()
		return nil, err
	}
	return &controller{
		pids:    map[string]int{"driver+all-in-one": os.Getpid()},
		metrics: map[string]string{"all-in-one": "http://" + metricsAddr + "/metrics"},
		stop:    func() { cancel(); <-done },
	}, nil
}

func (d *driver) startAllInOne(ctx context.Context, kubeconfig string) (*controller, error) {
	addrs, err := freeAddrs(2)
	if err != nil {
		return nil, err
	}
	args := append([]string{"all-in-one", "--nats-addr=", "--metrics-addr=" + addrs[0], "--health-addr=" + addrs[1]}, d.opts.ControllerArgs...)
	if d.opts.HeapProfile {
		args = append(args, "--enable-pprof")
	}
	p, err := startProcess("all-in-one", d.logDir, filepath.Join(d.opts.BinDir, "flux-kcl-controller"), args, []string{"KUBECONFIG=" + kubeconfig})
	if err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, "http://"+addrs[1]+"/readyz", p); err != nil {
		p.stop()
		return nil, err
	}
	return &controller{
		pids:    map[string]int{"all-in-one": p.pid()},
		metrics: map[string]string{"all-in-one": "http://" + addrs[0] + "/metrics"},
		stop:    p.stop,
	}, nil
}

// startSplit runs the four services as processes; NATS runs inside the driver, so its
// memory is not reported. With the jetstream-cluster fault NATS is a three-node cluster,
// the stream and buckets have three replicas, and two appliers and two compilers run (the
// shape issue 18's fault sequence asks for).
func (d *driver) startSplit(ctx context.Context, kubeconfig string) (*controller, error) {
	c := &controller{pids: map[string]int{}, metrics: map[string]string{}}
	var natsURL string
	var replicas []string
	replicaCount := 1
	if slices.Contains(d.opts.Faults, FaultJetStreamCluster) {
		nc, err := natsserver.StartCluster(natsserver.ClusterOptions{})
		if err != nil {
			return nil, fmt.Errorf("starting a NATS cluster: %w", err)
		}
		c.natsCluster, natsURL, replicaCount = nc, nc.URL(), 2
		replicas = []string{fmt.Sprintf("--jetstream-replicas=%d", nc.Nodes())}
	} else {
		ns, err := natsserver.Start(natsserver.Options{})
		if err != nil {
			return nil, fmt.Errorf("starting NATS: %w", err)
		}
		c.nats, natsURL = ns, ns.URL()
	}
	var procs []*process
	stopAll := func() {
		for i := len(procs) - 1; i >= 0; i-- {
			procs[i].stop()
		}
		if c.nats != nil {
			c.nats.Stop()
		}
		if c.natsCluster != nil {
			c.natsCluster.Stop()
		}
	}
	c.stop = stopAll
	env := []string{"KUBECONFIG=" + kubeconfig}
	var compilerAddrs []string
	var resolverAddr string
	for _, service := range []string{"compiler", "resolver", "applier", "watcher"} {
		count := 1
		if service == "compiler" || service == "applier" {
			count = replicaCount
		}
		for i := range count {
			name := service
			if count > 1 {
				name = fmt.Sprintf("%s-%d", service, i)
			}
			addrs, err := freeAddrs(3)
			if err != nil {
				stopAll()
				return nil, err
			}
			args := []string{"--metrics-addr=" + addrs[0], "--health-addr=" + addrs[1]}
			switch service {
			case "compiler":
				compilerAddrs = append(compilerAddrs, addrs[2])
				args = append(args, "--grpc-addr="+addrs[2])
			case "resolver":
				resolverAddr = addrs[2]
				args = append(args, "--grpc-addr="+addrs[2])
			case "applier":
				args = append(args, "--nats-url="+natsURL, "--compiler-addr="+strings.Join(compilerAddrs, ","), "--resolver-addr="+resolverAddr)
				if count > 1 {
					args = append(args, "--instance-name="+name)
				}
				args = append(args, replicas...)
			case "watcher":
				args = append(args, "--nats-url="+natsURL)
				args = append(args, replicas...)
			}
			p, err := startProcess(name, d.logDir, filepath.Join(d.opts.BinDir, service), args, env)
			if err != nil {
				stopAll()
				return nil, err
			}
			procs = append(procs, p)
			if err := waitHTTP(ctx, "http://"+addrs[1]+"/readyz", p); err != nil {
				stopAll()
				return nil, err
			}
			c.pids[name] = p.pid()
			c.metrics[name] = "http://" + addrs[0] + "/metrics"
		}
	}
	return c, nil
}

// startKustomizeController runs Flux's kustomize-controller as the reference: concurrency 20,
// no leader election, every namespace, metrics and health on loopback.
func (d *driver) startKustomizeController(ctx context.Context, kubeconfig string) (*controller, error) {
	addrs, err := freeAddrs(2)
	if err != nil {
		return nil, err
	}
	args := []string{
		"--concurrent=20", "--enable-leader-election=false", "--watch-all-namespaces=true",
		"--metrics-addr=" + addrs[0], "--health-addr=" + addrs[1], "--events-addr=",
		"--log-level=info",
	}
	p, err := startProcess("kustomize-controller", d.logDir, d.opts.KustomizeController, args, []string{"KUBECONFIG=" + kubeconfig})
	if err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, "http://"+addrs[1]+"/readyz", p); err != nil {
		p.stop()
		return nil, err
	}
	return &controller{
		pids:    map[string]int{"kustomize-controller": p.pid()},
		metrics: map[string]string{"kustomize-controller": "http://" + addrs[0] + "/metrics"},
		stop:    p.stop,
	}, nil
}
