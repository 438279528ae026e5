package fault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Process is a child process that can be killed for real and started again with the same
// command line, its output appended to one log file across restarts.
type Process struct {
	// Name labels the process in reports ("compiler-0").
	Name string
	// Path of the binary, Args without the program name, Env added to the parent's.
	Path string
	Args []string
	Env  []string
	// Log receives stdout and stderr; nil discards them.
	Log io.Writer
	// Ready, when set, is polled after a start until it returns nil (an HTTP health URL
	// through HTTPReady, a TCP port through PortReady).
	Ready func(ctx context.Context) error

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs the process and waits until Ready; an already running process is left alone.
func (p *Process) Start(ctx context.Context) error {
	p.mu.Lock()
	if p.cmd != nil {
		p.mu.Unlock()
		return nil
	}
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.Stdout, cmd.Stderr = p.Log, p.Log
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		p.mu.Unlock()
		return fmt.Errorf("starting %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done = cmd, done
	go func() {
		_ = cmd.Wait()
		close(done)
		p.mu.Lock()
		if p.cmd == cmd {
			p.cmd = nil
		}
		p.mu.Unlock()
	}()
	p.mu.Unlock()
	if p.Ready == nil {
		return nil
	}
	for {
		err := p.Ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("%s exited before it was ready: %w", p.Name, err)
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %w", p.Name, errors.Join(ctx.Err(), err))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// PID of the running process, 0 when it is not running.
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Running reports whether the process is alive.
func (p *Process) Running() bool { return p.PID() != 0 }

// Kill sends SIGKILL and returns the pid once the process is gone.
func (p *Process) Kill() (pid int, err error) {
	return p.signal(syscall.SIGKILL, 0)
}

// Stop sends SIGTERM and waits up to grace, then SIGKILL.
func (p *Process) Stop(grace time.Duration) error {
	_, err := p.signal(syscall.SIGTERM, grace)
	return err
}

func (p *Process) signal(sig syscall.Signal, grace time.Duration) (int, error) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return 0, fmt.Errorf("%s is not running", p.Name)
	}
	pid := cmd.Process.Pid
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return pid, fmt.Errorf("signalling %s (pid %d): %w", p.Name, pid, err)
	}
	if grace > 0 {
		select {
		case <-done:
			return pid, nil
		case <-time.After(grace):
			_ = cmd.Process.Kill()
		}
	}
	<-done
	return pid, nil
}

// HTTPReady is a Ready func that wants 200 from url.
func HTTPReady(url string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		return nil
	}
}

// PortReady is a Ready func that wants addr to accept TCP connections.
func PortReady(addr string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return conn.Close()
	}
}

// FreeAddr returns a loopback address with a port free at the time of the call, for a
// child process to listen on (and listen on again after a restart).
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
