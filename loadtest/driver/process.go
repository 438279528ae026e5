package driver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// process is a child process the driver started and measures.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan error
	log  *os.File
}

// startProcess runs bin with args and extra environment, its output in logDir/name.log. The
// kernel kills it if the driver dies.
func startProcess(name, logDir, bin string, args, env []string) (*process, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating log dir: %w", err)
	}
	logFile, err := os.Create(filepath.Join(logDir, name+".log"))
	if err != nil {
		return nil, fmt.Errorf("creating log of %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, bin, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan error, 1), log: logFile}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports an early exit.
func (p *process) exited() error {
	select {
	case err := <-p.done:
		p.done <- err
		return fmt.Errorf("%s exited early (%v); see %s", p.name, err, p.log.Name())
	default:
		return nil
	}
}

// stop sends SIGTERM, then SIGKILL after a grace period, and waits.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.log.Close()
}

// waitHTTP polls url until it answers 200, the process exits or ctx ends. Start-up is not a
// measured quantity: polling here only gates the scenarios.
func waitHTTP(ctx context.Context, url string, procs ...*process) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		for _, p := range procs {
			if err := p.exited(); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", url, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// freeAddr is a loopback address with a port free right now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func freeAddrs(n int) ([]string, error) {
	var addrs []string
	var errs []error
	for range n {
		a, err := freeAddr()
		addrs, errs = append(addrs, a), append(errs, err)
	}
	return addrs, errors.Join(errs...)
}
