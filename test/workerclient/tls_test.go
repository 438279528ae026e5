package workerclient_test

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/kcl-lang/flux-kcl-controller/internal/tlsfiles"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/pki"
)

// startTLSCompiler serves a compiler through its own Serve (the worker binary's code
// path) with mutual TLS, and its HTTP health endpoint, on loopback.
func startTLSCompiler(t *testing.T, files pki.Files) (grpcAddr, healthAddr string) {
	t.Helper()
	healthLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	healthAddr = healthLis.Addr().String()
	_ = healthLis.Close() // the worker binds it itself

	cfg := compiler.DefaultConfig()
	cfg.ArtifactCacheDir = t.TempDir()
	cfg.MetricsAddr, cfg.HealthAddr = "", healthAddr
	cfg.TLS = tlsfiles.Files{CertFile: files.Cert, KeyFile: files.Key, CAFile: files.CA}
	svc, err := compiler.New(cfg, compiler.Deps{Registerer: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ctx, lis) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("compiler: %v", err)
		}
	})
	return lis.Addr().String(), healthAddr
}

// healthCheck makes one gRPC health call that fails at once when the connection
// cannot be made (no waiting for readiness).
func healthCheck(t *testing.T, addr string, creds credentials.TransportCredentials) error {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	return err
}

func clientCreds(t *testing.T, files tlsfiles.Files, serverName string) credentials.TransportCredentials {
	t.Helper()
	r, err := tlsfiles.NewReloader(files)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tlsfiles.ClientConfig(r, serverName)
	if err != nil {
		t.Fatal(err)
	}
	return credentials.NewTLS(cfg)
}

func TestWorkersOverMutualTLS(t *testing.T) {
	ca := pki.NewCA(t, "workers CA")
	worker := ca.Issue(t, "kcl-compiler", "kcl-compiler", "127.0.0.1")
	applierCert := ca.Issue(t, "applier")
	addr, healthAddr := startTLSCompiler(t, worker)

	// The applier's client, with its certificate, is served.
	cfg := workerclient.DefaultConfig()
	cfg.CompilerAddr, cfg.ResolverAddr = addr, addr
	cfg.TLS = tlsfiles.Files{CertFile: applierCert.Cert, KeyFile: applierCert.Key, CAFile: applierCert.CA}
	client, err := workerclient.Dial(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	art := publish(t, map[string]string{"main.k": program})
	out, err := client.Compile(ctx, workerclient.CompileInput{Artifact: art})
	if err != nil {
		t.Fatalf("compile over mutual TLS: %v", err)
	}
	if len(out.Objects) != 1 {
		t.Fatalf("got %d objects", len(out.Objects))
	}
	// The certificate names the service; the applier can be told to expect it.
	if err := healthCheck(t, addr, clientCreds(t, cfg.TLS, "kcl-compiler")); err != nil {
		t.Fatalf("health over mutual TLS with --grpc-tls-server-name: %v", err)
	}

	refused := map[string]credentials.TransportCredentials{
		"plaintext":             insecure.NewCredentials(),
		"no client certificate": clientCreds(t, tlsfiles.Files{CAFile: applierCert.CA}, ""),
	}
	other := pki.NewCA(t, "other CA")
	stranger := other.Issue(t, "stranger")
	refused["client certificate of another CA"] = clientCreds(t, tlsfiles.Files{CertFile: stranger.Cert, KeyFile: stranger.Key, CAFile: applierCert.CA}, "")
	refused["server verified with another CA"] = clientCreds(t, tlsfiles.Files{CertFile: applierCert.Cert, KeyFile: applierCert.Key, CAFile: stranger.CA}, "")
	refused["server name not in the certificate"] = clientCreds(t, cfg.TLS, "kcl-resolver")
	for name, creds := range refused {
		if err := healthCheck(t, addr, creds); err == nil {
			t.Errorf("%s: served", name)
		} else {
			t.Logf("%s: refused: %v", name, err)
		}
	}

	// Probes use plain HTTP on the health address: no client certificate needed.
	resp, err := http.Get("http://" + healthAddr + "/readyz")
	if err != nil {
		t.Fatalf("HTTP probe: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP probe: %s", resp.Status)
	}
}
