// Package registrytest serves an OCI registry in process on 127.0.0.1 (the
// go-containerregistry reference registry), optionally behind basic
// authentication, and pushes KCL packages to it in kpm's format. Tests only.
package registrytest

import (
	"context"
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/fetch"
)

// Server is a running registry.
type Server struct {
	// Host is "127.0.0.1:port", the registry part of references.
	Host string
	// User and Password are the basic-auth login; empty when open.
	User, Password string
	// CAFile is the PEM certificate of a TLS registry (StartTLS).
	CAFile string
	// Requests counts the requests served (manifests and blobs).
	Requests atomic.Int64

	srv *httptest.Server
}

// Start serves an open registry until the test ends.
func Start(tb testing.TB) *Server { return start(tb, "", "", false) }

// StartWithAuth serves a registry that answers 401 without the login.
func StartWithAuth(tb testing.TB, user, password string) *Server {
	return start(tb, user, password, false)
}

// StartTLS serves an open registry over HTTPS with a certificate of its own
// authority, written as PEM to CAFile.
func StartTLS(tb testing.TB) *Server { return start(tb, "", "", true) }

func start(tb testing.TB, user, password string, useTLS bool) *Server {
	tb.Helper()
	s := &Server{User: user, Password: password}
	handler := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		if user != "" {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != password {
				w.Header().Set("WWW-Authenticate", `Basic realm="registrytest"`)
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
				return
			}
		}
		handler.ServeHTTP(w, r)
	}))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.srv.Listener = lis
	if useTLS {
		s.srv.StartTLS()
		s.CAFile = filepath.Join(tb.TempDir(), "ca.pem")
		block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
		if err := os.WriteFile(s.CAFile, block, 0o644); err != nil {
			tb.Fatal(err)
		}
	} else {
		s.srv.Start()
	}
	tb.Cleanup(s.srv.Close)
	s.Host = lis.Addr().String()
	return s
}

// Close stops the registry (an unreachable registry from then on).
func (s *Server) Close() { s.srv.Close() }

// DockerConfig is the Docker config JSON of the server's login.
func (s *Server) DockerConfig() []byte {
	return DockerConfig(s.Host, s.User, s.Password)
}

// DockerConfig builds a Docker config JSON for one login.
func DockerConfig(host, user, password string) []byte {
	return []byte(`{"auths":{"` + host + `":{"username":"` + user + `","password":"` + password + `"}}}`)
}

// Push writes files (path → content) as a package folder and pushes it to
// host/repoTag ("kcl-lang/k8s:1.29"); it returns the manifest digest.
func (s *Server) Push(tb testing.TB, repoTag string, files map[string]string) string {
	tb.Helper()
	dir := WriteFiles(tb, files)
	var keychain authn.Keychain
	if s.User != "" {
		creds, err := fetch.ParseDockerConfig(s.DockerConfig())
		if err != nil {
			tb.Fatal(err)
		}
		keychain = creds
	}
	digest, err := fetch.Push(context.Background(), dir, s.Host+"/"+repoTag, fetch.PushOptions{Keychain: keychain, PlainHTTP: s.CAFile == "", Transport: s.srv.Client().Transport})
	if err != nil {
		tb.Fatalf("pushing %s: %v", repoTag, err)
	}
	return digest
}

// WriteFiles writes files (slash paths → content) into a new temporary folder.
func WriteFiles(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// K8sLike is a tiny stand-in for ghcr.io/kcl-lang/k8s: the package layout
// (api/apps/v1, api/core/v1) and schemas a real program imports.
func K8sLike(version string) map[string]string {
	return map[string]string{
		"kcl.mod": "[package]\nname = \"k8s\"\nedition = \"0.0.1\"\nversion = \"" + version + "\"\ndescription = \"a tiny k8s\"\n",
		"api/core/v1/container.k": `schema Container:
    name: str
    image?: str
    ports?: [ContainerPort]

schema ContainerPort:
    containerPort: int
`,
		"api/core/v1/pod.k": `schema PodSpec:
    containers: [Container]

schema PodTemplateSpec:
    metadata?: {str:}
    spec?: PodSpec
`,
		"api/apps/v1/deployment.k": `import k8s.api.core.v1

schema Deployment:
    apiVersion: "apps/v1" = "apps/v1"
    kind: "Deployment" = "Deployment"
    metadata?: {str:}
    spec?: DeploymentSpec

schema DeploymentSpec:
    replicas?: int = 1
    selector: {str:}
    template: v1.PodTemplateSpec
`,
	}
}
