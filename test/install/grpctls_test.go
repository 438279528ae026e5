package install_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"net"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/internal/tlsfiles"
)

// The chart's generated certificates carry a real mutual-TLS handshake: the applier's client
// certificate is accepted by the workers and the workers' certificate is valid for the name the
// applier dials. The Secrets are accepted by the apiserver.
func TestChartGeneratesGRPCCertificates(t *testing.T) {
	g := NewWithT(t)
	objs := renderChart(t, []string{"ci/generated-tls-values.yaml"}, nil)
	worker := secretFiles(t, objs, "kcl-worker-tls")
	applier := secretFiles(t, objs, "kcl-applier-tls")

	serverCfg := tlsConfig(t, worker, func(r *tlsfiles.Reloader) (*tls.Config, error) { return tlsfiles.ServerConfig(r) })
	for _, host := range []string{"kcl-compiler." + releaseNamespace + ".svc", "kcl-resolver." + releaseNamespace + ".svc"} {
		clientCfg := tlsConfig(t, applier, func(r *tlsfiles.Reloader) (*tls.Config, error) { return tlsfiles.ClientConfig(r, host) })
		g.Expect(handshake(serverCfg, clientCfg)).To(Succeed(), host)
	}
	// A name the workers' certificate does not carry is refused.
	wrongName := tlsConfig(t, applier, func(r *tlsfiles.Reloader) (*tls.Config, error) { return tlsfiles.ClientConfig(r, "kcl-applier") })
	g.Expect(handshake(serverCfg, wrongName)).NotTo(Succeed())

	if !testing.Short() {
		needsAPIServer(t)
		g.Expect(dryRunApply(context.Background(), objs)).To(Succeed())
	}
}

// With cert-manager, the chart asks it for both Secrets from one CA issuer; auto picks it only
// when the cluster serves cert-manager.io/v1 (the test apiserver does not: auto generates).
func TestChartCertManagerCertificates(t *testing.T) {
	g := NewWithT(t)
	objs := renderChart(t, nil, map[string]any{"grpcTLS": map[string]any{"enabled": true, "certificates": "certManager"}})
	secrets := map[string]string{}
	for _, o := range objs {
		if o.GetKind() == "Certificate" {
			secret, _, _ := unstructured.NestedString(o.Object, "spec", "secretName")
			issuer, _, _ := unstructured.NestedString(o.Object, "spec", "issuerRef", "name")
			secrets[secret] = issuer
		}
	}
	g.Expect(secrets).To(Equal(map[string]string{
		"kcl-grpc-ca":     "kcl-grpc-selfsigned",
		"kcl-worker-tls":  "kcl-grpc-ca",
		"kcl-applier-tls": "kcl-grpc-ca",
	}))

	auto := renderChart(t, nil, map[string]any{"grpcTLS": map[string]any{"enabled": true, "certificates": "auto"}})
	g.Expect(kinds(auto)).NotTo(ContainElement("Certificate"))
	secretFiles(t, auto, "kcl-worker-tls")
}

// secretFiles writes a rendered kubernetes.io/tls Secret's keys as files, as its volume would.
func secretFiles(t *testing.T, objs []*unstructured.Unstructured, name string) tlsfiles.Files {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() != "Secret" || o.GetName() != name {
			continue
		}
		dir := t.TempDir()
		data, _, _ := unstructured.NestedStringMap(o.Object, "data")
		for _, key := range []string{"tls.crt", "tls.key", "ca.crt"} {
			raw, err := base64.StdEncoding.DecodeString(data[key])
			if err != nil || len(raw) == 0 {
				t.Fatalf("Secret %s: key %s is missing or not base64 (%v)", name, key, err)
			}
			if err := os.WriteFile(filepath.Join(dir, key), raw, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return tlsfiles.Files{CertFile: filepath.Join(dir, "tls.crt"), KeyFile: filepath.Join(dir, "tls.key"), CAFile: filepath.Join(dir, "ca.crt")}
	}
	t.Fatalf("the chart rendered no Secret %s", name)
	return tlsfiles.Files{}
}

func tlsConfig(t *testing.T, files tlsfiles.Files, build func(*tlsfiles.Reloader) (*tls.Config, error)) *tls.Config {
	t.Helper()
	r, err := tlsfiles.NewReloader(files)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := build(r)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// handshake runs both sides of a TLS handshake over an in-memory connection.
func handshake(server, client *tls.Config) error {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	serverErr := make(chan error, 1)
	go func() {
		s := tls.Server(a, server)
		err := s.Handshake()
		if err != nil {
			_ = a.Close()
		}
		serverErr <- err
	}()
	c := tls.Client(b, client)
	if err := c.Handshake(); err != nil {
		_ = b.Close()
		<-serverErr
		return err
	}
	return <-serverErr
}
