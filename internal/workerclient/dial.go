package workerclient

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	_ "google.golang.org/grpc/health" // client-side health checking, named in the service config
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/test/bufconn"
)

// Names of the gRPC services, as in proto/.
const (
	compilerService = "fluxkcl.compiler.v1.Compiler"
	resolverService = "fluxkcl.resolver.v1.Resolver"
)

// serviceConfig balances round-robin over the healthy replicas (a replica that
// starts shutting down reports NOT_SERVING and stops receiving calls) and retries
// a call that failed with UNAVAILABLE, which pick another replica.
func serviceConfig(maxAttempts int) string {
	if maxAttempts < 1 {
		maxAttempts = 1
	}
	if maxAttempts > 5 {
		maxAttempts = 5
	}
	retry := ""
	if maxAttempts > 1 {
		retry = fmt.Sprintf(`,
    "retryPolicy": {
      "maxAttempts": %d,
      "initialBackoff": "0.05s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }`, maxAttempts)
	}
	return fmt.Sprintf(`{
  "loadBalancingConfig": [{"round_robin": {}}],
  "healthCheckConfig": {"serviceName": ""},
  "methodConfig": [{
    "name": [{"service": %q}, {"service": %q}],
    "waitForReady": true%s
  }]
}`, compilerService, resolverService, retry)
}

func dialOptions(cfg Config, serviceConfigJSON string) []grpc.DialOption {
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(serviceConfigJSON),
	}
	if cfg.MaxMessageBytes > 0 {
		opts = append(opts, grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.MaxMessageBytes)))
	}
	if cfg.KeepaliveTime > 0 {
		opts = append(opts, grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: cfg.KeepaliveTime, Timeout: 10 * time.Second}))
	}
	return opts
}

// dial opens a lazily connecting channel to every replica behind target.
func dial(target string, cfg Config) (*grpc.ClientConn, error) {
	target = strings.TrimSpace(target)
	if target == "" {
		return nil, fmt.Errorf("empty target")
	}
	opts := dialOptions(cfg, serviceConfig(cfg.MaxAttempts))
	if cfg.TLS.Enabled() {
		creds, err := clientCredentials(cfg)
		if err != nil {
			return nil, err
		}
		opts = append(opts, grpc.WithTransportCredentials(creds))
	}
	switch {
	case strings.Contains(target, ","):
		// A fixed list: a manual resolver hands every address to round_robin.
		var addrs []resolver.Address
		for _, a := range strings.Split(target, ",") {
			if a = strings.TrimSpace(a); a != "" {
				addrs = append(addrs, resolver.Address{Addr: a})
			}
		}
		r := manual.NewBuilderWithScheme("workerlist")
		r.InitialState(resolver.State{Addresses: addrs})
		opts = append(opts, grpc.WithResolvers(r))
		target = r.Scheme() + ":///list"
	case !strings.Contains(target, ":///"):
		target = "dns:///" + target
	}
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, fmt.Errorf("dialling %s: %w", target, err)
	}
	return conn, nil
}

// Registrant is a worker service that can be served in process.
type Registrant interface {
	Register(grpc.ServiceRegistrar)
}

// inProcess serves one worker on an in-memory listener: no port is opened.
type inProcess struct {
	server   *grpc.Server
	listener *bufconn.Listener
	conn     *grpc.ClientConn
}

func serveInProcess(svc Registrant, cfg Config) (*inProcess, error) {
	listener := bufconn.Listen(1 << 20)
	server := grpc.NewServer(grpc.MaxSendMsgSize(cfg.MaxMessageBytes))
	svc.Register(server)
	go func() { _ = server.Serve(listener) }()
	// One server, no health service: pick_first, and waitForReady rides out the
	// moment before Serve starts.
	inProcessConfig := fmt.Sprintf(`{"methodConfig": [{"name": [{"service": %q}, {"service": %q}], "waitForReady": true}]}`,
		compilerService, resolverService)
	opts := append(dialOptions(Config{MaxMessageBytes: cfg.MaxMessageBytes}, inProcessConfig),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return listener.DialContext(ctx) }))
	conn, err := grpc.NewClient("passthrough:///in-process", opts...)
	if err != nil {
		server.Stop()
		return nil, fmt.Errorf("dialling the in-process server: %w", err)
	}
	return &inProcess{server: server, listener: listener, conn: conn}, nil
}

func (p *inProcess) close() {
	_ = p.conn.Close()
	p.server.GracefulStop()
}
