package allinone

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// natsReadyTimeout bounds the embedded server's start (JetStream recovers its
// store first).
const natsReadyTimeout = time.Minute

// embeddedNATS is the process's NATS server with JetStream.
type embeddedNATS struct {
	srv          *server.Server
	storeDir     string
	removeOnStop string
}

func startNATS(addr, storeDir string, log bool) (*embeddedNATS, error) {
	e := &embeddedNATS{}
	if storeDir == "" {
		dir, err := os.MkdirTemp("", "flux-kcl-controller-jetstream-")
		if err != nil {
			return nil, fmt.Errorf("creating JetStream store folder: %w", err)
		}
		storeDir, e.removeOnStop = dir, dir
	}
	e.storeDir = storeDir
	opts := &server.Options{
		// A fixed name keeps the JetStream identity stable across restarts.
		ServerName: "flux-kcl-controller",
		JetStream:  true,
		StoreDir:   storeDir,
		NoSigs:     true,
		NoLog:      !log,
		MaxPayload: 8 << 20,
	}
	if addr == "" {
		opts.DontListen = true
	} else {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("parsing --nats-addr %q: %w", addr, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return nil, fmt.Errorf("parsing --nats-addr %q: %w", addr, err)
		}
		if p == 0 {
			p = server.RANDOM_PORT // for nats-server, 0 means its default port
		}
		opts.Host, opts.Port = host, p
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		e.cleanup()
		return nil, fmt.Errorf("creating embedded NATS server: %w", err)
	}
	if log {
		srv.ConfigureLogger()
	}
	srv.Start()
	if !srv.ReadyForConnections(natsReadyTimeout) {
		srv.Shutdown()
		e.cleanup()
		return nil, errors.New("embedded NATS server did not become ready")
	}
	e.srv = srv
	return e, nil
}

// connect opens an in-process client connection: no socket, no port.
func (e *embeddedNATS) connect(name string) (*nats.Conn, error) {
	nc, err := nats.Connect("", nats.InProcessServer(e.srv), nats.Name(name), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("connecting to the embedded NATS server: %w", err)
	}
	return nc, nil
}

// url is the address outside clients use, empty when it listens nowhere.
func (e *embeddedNATS) url() string {
	if e.srv.Addr() == nil {
		return ""
	}
	return e.srv.ClientURL()
}

func (e *embeddedNATS) stop() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	e.cleanup()
}

func (e *embeddedNATS) cleanup() {
	if e.removeOnStop != "" {
		_ = os.RemoveAll(e.removeOnStop)
	}
}
