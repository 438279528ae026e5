// Package natsserver runs the real nats-server in-process with JetStream enabled, for tests
// and local runs.
//
// API:
//
//	s, err := natsserver.Start(natsserver.Options{})  // random port, JetStream store in a new temp dir
//	s := natsserver.StartT(t)                          // same, fails t and stops the server on cleanup
//	s.URL()                // nats://127.0.0.1:<port>
//	nc, err := s.Connect() // a *nats.Conn to it (the caller closes it)
//	s.Shutdown()           // stop the server, keep port and store (simulates a crash or restart)
//	err = s.Restart()      // start again on the same port with the same store dir
//	s.Stop()               // stop and remove the temp store dir (idempotent)
//
// Options.ConfigFile loads a nats-server configuration file (authorization with users and
// permissions, tls) with the server's own parser, as a deployed server would.
//
// Clients that reconnect (nats.go does by default) survive Shutdown+Restart, and JetStream
// streams and consumers persisted in the store come back with the server.
//
// StartCluster runs a three-node JetStream cluster instead (cluster.go): routes between the
// nodes, a store dir per node, leaders to find and wait for, nodes to crash and restart.
package natsserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// readyTimeout bounds how long start-up may take before it is reported as a failure.
const readyTimeout = 30 * time.Second

// Options tune the server; the zero value is a JetStream server on a random loopback port.
type Options struct {
	// Port to listen on; 0 picks a free one.
	Port int
	// StoreDir holds the JetStream store; "" makes a temp dir that Stop removes.
	StoreDir string
	// MaxMemory and MaxStore bound JetStream resources in bytes; 0 uses the server defaults.
	MaxMemory int64
	MaxStore  int64
	// Log enables the server's own log on stderr, for debugging a test.
	Log bool
	// ConfigFile is a nats-server configuration (authorization, tls, ...) read by the
	// server's own parser; host, port, JetStream store and logging still come from
	// these Options.
	ConfigFile string
}

// Server is a running (or shut down, restartable) in-process nats-server.
type Server struct {
	mu        sync.Mutex
	opts      server.Options
	srv       *server.Server
	ownsStore bool
}

// Start runs a nats-server with JetStream and waits until it accepts connections.
func Start(o Options) (*Server, error) {
	s := &Server{}
	storeDir := o.StoreDir
	if storeDir == "" {
		dir, err := os.MkdirTemp("", "natsserver-")
		if err != nil {
			return nil, fmt.Errorf("creating JetStream store dir: %w", err)
		}
		storeDir, s.ownsStore = dir, true
	}
	port := o.Port
	if port == 0 {
		port = server.RANDOM_PORT
	}
	if o.ConfigFile != "" {
		fileOpts, err := server.ProcessConfigFile(o.ConfigFile)
		if err != nil {
			s.removeStore()
			return nil, fmt.Errorf("reading nats-server configuration %s: %w", o.ConfigFile, err)
		}
		s.opts = *fileOpts
	}
	// A fixed name keeps the JetStream identity stable across restarts.
	s.opts.ServerName = "harness"
	s.opts.Host, s.opts.Port = "127.0.0.1", port
	s.opts.JetStream, s.opts.StoreDir = true, storeDir
	s.opts.JetStreamMaxMemory, s.opts.JetStreamMaxStore = o.MaxMemory, o.MaxStore
	s.opts.NoLog, s.opts.NoSigs = !o.Log, true
	s.opts.MaxPayload = 8 << 20
	if err := s.start(o.Log); err != nil {
		s.removeStore()
		return nil, err
	}
	// Pin the chosen port so Restart comes back where clients expect it.
	s.opts.Port = s.srv.Addr().(*net.TCPAddr).Port
	return s, nil
}

// StartT starts a server for a test, failing it on error and stopping the server on cleanup.
func StartT(tb testing.TB) *Server {
	tb.Helper()
	s, err := Start(Options{})
	if err != nil {
		tb.Fatalf("starting nats-server: %v", err)
	}
	tb.Cleanup(s.Stop)
	return s
}

func (s *Server) start(log bool) error {
	opts := s.opts // the server keeps a pointer; give each instance its own copy
	srv, err := server.NewServer(&opts)
	if err != nil {
		return fmt.Errorf("creating nats-server: %w", err)
	}
	if log {
		srv.ConfigureLogger()
	}
	srv.Start()
	if !srv.ReadyForConnections(readyTimeout) {
		srv.Shutdown()
		return errors.New("nats-server did not become ready for connections")
	}
	s.srv = srv
	return nil
}

// URL is the client URL of the server; stable across Restart.
func (s *Server) URL() string {
	return fmt.Sprintf("nats://%s:%d", s.opts.Host, s.opts.Port)
}

// Port the server listens on; stable across Restart.
func (s *Server) Port() int { return s.opts.Port }

// StoreDir is the JetStream store directory; stable across Restart.
func (s *Server) StoreDir() string { return s.opts.StoreDir }

// Server is the underlying nats-server, nil while shut down.
func (s *Server) Server() *server.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srv
}

// Connect opens a client connection that keeps reconnecting forever, so it outlives a
// Shutdown/Restart cycle. Extra options are applied after those defaults.
func (s *Server) Connect(opts ...nats.Option) (*nats.Conn, error) {
	all := append([]nats.Option{
		nats.MaxReconnects(-1),
		nats.ReconnectWait(50 * time.Millisecond),
	}, opts...)
	nc, err := nats.Connect(s.URL(), all...)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", s.URL(), err)
	}
	return nc, nil
}

// Shutdown stops the server but keeps its port and store for Restart.
func (s *Server) Shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return
	}
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
	s.srv = nil
}

// Restart starts the server again on the same port with the same JetStream store,
// shutting it down first if it is running.
func (s *Server) Restart() error {
	s.Shutdown()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.start(!s.opts.NoLog)
}

// Stop shuts the server down and removes the store dir if Start created it.
func (s *Server) Stop() {
	s.Shutdown()
	s.removeStore()
}

func (s *Server) removeStore() {
	if s.ownsStore {
		_ = os.RemoveAll(s.opts.StoreDir)
		s.ownsStore = false
	}
}
