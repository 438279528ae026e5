// Package kube starts a real kube-apiserver and etcd (controller-runtime envtest) with the
// CRDs the controller works with installed: KCLRun (deploy/crd/), the Flux source v1 kinds
// (GitRepository, OCIRepository, Bucket, ExternalArtifact) and ImagePolicy v1.
//
// API:
//
//	env, err := kube.Start(ctx)   // from TestMain or a program; one per test package
//	defer env.Stop()
//	env.Config                    // *rest.Config (admin)
//	env.Client                    // controller-runtime client with kube.Scheme()
//	env.Kubeconfig()              // path of a kubeconfig file, for processes
//	ns, err := env.CreateNamespace(ctx, "prefix")  // a fresh namespace per test
//	cfg, err := env.AddUser("alice", "group")      // a non-admin rest.Config (RBAC applies)
//	env := kube.StartT(t)         // in a single test: fails t, stops on cleanup
//	err = env.StopAPIServer()     // an apiserver outage: etcd keeps running with its data
//	err = env.StartAPIServer(ctx) // back on the same port with the same certificates
//	err = env.RestartAPIServer(ctx)
//	remote, err := kube.StartWith(ctx, kube.Options{TrustServiceAccountsOf: env, Audience: "remote"})
//	                              // a second cluster that trusts env's service account tokens
//
// Binaries come from KUBEBUILDER_ASSETS; when it is unset the harness runs
// hack/envtest/build.sh (cached, builds once) and uses the folder it prints. The extra CRDs
// come from hack/envtest/crds.sh (cached likewise). The apiserver serves service IPs from
// 10.0.0.0/16. A slow start makes controller-runtime print a "log.SetLogger(...) was never
// called" stack after 30s: call ctrllog.SetLogger in TestMain to silence it. Where setpriv exists, etcd and the apiserver are killed when the process
// that started them dies, even without Stop.
package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kclv1alpha1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// startTimeout is generous: the machine running the tests may be busy.
const startTimeout = 3 * time.Minute

// Env is a running apiserver with the CRDs installed.
type Env struct {
	// Config is an admin rest.Config for the apiserver.
	Config *rest.Config
	// Client is a controller-runtime client using Scheme().
	Client client.Client

	env        *envtest.Environment
	kubeconfig string
	removeBin  func()
	// certDir is the apiserver's certificate folder, owned by the harness so that
	// a restarted apiserver keeps its serving certificate (and clients their CA).
	certDir  string
	apiMu    sync.Mutex
	stopOnce sync.Once
	stopErr  error
}

// Options change how StartWith runs the apiserver.
type Options struct {
	// TrustServiceAccountsOf makes the apiserver authenticate the service
	// account tokens that Env's apiserver issues for Audience, through a JWT
	// authenticator (structured authentication configuration) on Env's OIDC
	// issuer: a fleet cluster trusting its management cluster, as workload
	// identity with Flux's kubeConfig.configMapRef (provider generic) needs.
	// The user is the token's subject, system:serviceaccount:<ns>:<name>.
	TrustServiceAccountsOf *Env
	Audience               string
}

// Start runs etcd and kube-apiserver, installs the CRDs and returns once they are served.
func Start(ctx context.Context) (*Env, error) { return StartWith(ctx, Options{}) }

// freePort is a loopback port nothing listens on now, as envtest picks them.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("choosing the apiserver port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// trustIssuer lets anyone read issuer's OIDC discovery documents (as a public
// issuer serves them) and writes the authentication configuration that trusts
// its tokens for audience; it returns the file's path.
func trustIssuer(ctx context.Context, issuer *Env, audience, dir string) (string, error) {
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "harness-public-oidc-discovery"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:service-account-issuer-discovery"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:unauthenticated"}},
	}
	if err := issuer.Client.Create(ctx, binding); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("opening OIDC discovery: %w", err)
	}
	config := map[string]any{
		"apiVersion": "apiserver.config.k8s.io/v1",
		"kind":       "AuthenticationConfiguration",
		"jwt": []any{map[string]any{
			"issuer": map[string]any{
				"url":                  issuer.ServiceAccountIssuer(),
				"audiences":            []string{audience},
				"certificateAuthority": string(issuer.Config.CAData),
			},
			"claimMappings": map[string]any{"username": map[string]any{"claim": "sub", "prefix": ""}},
		}},
	}
	data, err := json.Marshal(config)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "authentication-config.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("writing authentication configuration: %w", err)
	}
	return path, nil
}

// ServiceAccountIssuer is the issuer (iss) of the service account tokens the apiserver signs.
func (e *Env) ServiceAccountIssuer() string {
	return e.env.ControlPlane.GetAPIServer().SecureServing.URL("https", "/").String()
}

// StartWith is Start with options.
func StartWith(ctx context.Context, opts Options) (*Env, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		if assets, err = runScript(ctx, filepath.Join(root, "hack", "envtest", "build.sh")); err != nil {
			return nil, fmt.Errorf("building kube-apiserver and etcd: %w", err)
		}
	}
	fluxCRDs, err := runScript(ctx, filepath.Join(root, "hack", "envtest", "crds.sh"))
	if err != nil {
		return nil, fmt.Errorf("preparing Flux CRDs: %w", err)
	}

	bin, err := guardBinaries(assets)
	if err != nil {
		return nil, err
	}
	removeBin := func() {
		if bin != assets {
			_ = os.RemoveAll(bin)
		}
	}

	te := &envtest.Environment{
		BinaryAssetsDirectory:    bin,
		CRDDirectoryPaths:        []string{filepath.Join(root, "deploy", "crd"), fluxCRDs},
		ErrorIfCRDPathMissing:    true,
		Scheme:                   Scheme(),
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  time.Minute,
	}
	// Explicit paths: envtest prefers KUBEBUILDER_ASSETS (set by make test) to
	// BinaryAssetsDirectory, which would bypass the guarded wrappers.
	te.ControlPlane.GetAPIServer().Path = filepath.Join(bin, "kube-apiserver")
	te.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(bin, "etcd")}
	te.ControlPlane.GetAPIServer().Configure().Set("service-cluster-ip-range", "10.0.0.0/16")
	// On SIGTERM, stop within seconds of draining in-flight requests instead of waiting up
	// to a minute for open watches: StopAPIServer is then quick, as a rolling restart is.
	te.ControlPlane.GetAPIServer().Configure().Set("shutdown-send-retry-after", "true")
	// The OIDC discovery document names the keys at the advertised address,
	// which may not be reachable; a trusting apiserver (Options) fetches them
	// on loopback. The port is chosen here to be known before the start.
	port, err := freePort()
	if err != nil {
		removeBin()
		return nil, err
	}
	te.ControlPlane.GetAPIServer().SecurePort = port
	te.ControlPlane.GetAPIServer().Configure().Set("service-account-jwks-uri", fmt.Sprintf("https://127.0.0.1:%d/openid/v1/jwks", port))
	certDir, err := os.MkdirTemp("", "kube-harness-certs-")
	if err != nil {
		removeBin()
		return nil, fmt.Errorf("creating apiserver cert dir: %w", err)
	}
	te.ControlPlane.GetAPIServer().CertDir = certDir
	if issuer := opts.TrustServiceAccountsOf; issuer != nil {
		authn, err := trustIssuer(ctx, issuer, opts.Audience, certDir)
		if err != nil {
			removeBin()
			_ = os.RemoveAll(certDir)
			return nil, err
		}
		te.ControlPlane.GetAPIServer().Configure().Set("authentication-config", authn)
	}
	if _, err := te.Start(); err != nil {
		_ = te.Stop()
		removeBin()
		_ = os.RemoveAll(certDir)
		return nil, fmt.Errorf("starting envtest with assets from %s: %w", assets, err)
	}

	e := &Env{env: te, Config: te.Config, removeBin: removeBin, certDir: certDir}
	if e.Client, err = client.New(te.Config, client.Options{Scheme: Scheme()}); err != nil {
		_ = e.Stop()
		return nil, fmt.Errorf("creating client: %w", err)
	}
	if e.kubeconfig, err = writeKubeconfig(te.KubeConfig); err != nil {
		_ = e.Stop()
		return nil, err
	}
	return e, nil
}

// StartT starts an Env for one test, failing it on error and stopping it on cleanup.
// Prefer one Env per package, started in TestMain.
func StartT(tb testing.TB) *Env {
	tb.Helper()
	e, err := Start(context.Background())
	if err != nil {
		tb.Fatalf("starting kube-apiserver: %v", err)
	}
	tb.Cleanup(func() {
		if err := e.Stop(); err != nil {
			tb.Errorf("stopping kube-apiserver: %v", err)
		}
	})
	return e
}

// Kubeconfig is the path of a kubeconfig file with admin credentials.
func (e *Env) Kubeconfig() string { return e.kubeconfig }

// Stop stops the apiserver and etcd and removes the kubeconfig file; safe to call twice.
func (e *Env) Stop() error {
	e.stopOnce.Do(func() {
		if e.kubeconfig != "" {
			_ = os.RemoveAll(filepath.Dir(e.kubeconfig))
		}
		if err := e.env.Stop(); err != nil {
			e.stopErr = fmt.Errorf("stopping envtest: %w", err)
		}
		e.removeBin()
		_ = os.RemoveAll(e.certDir)
	})
	return e.stopErr
}

// StopAPIServer stops kube-apiserver (SIGTERM, as a rolling restart would) and leaves
// etcd running with its data: clients see connection errors until StartAPIServer.
func (e *Env) StopAPIServer() error {
	e.apiMu.Lock()
	defer e.apiMu.Unlock()
	if err := e.env.ControlPlane.APIServer.Stop(); err != nil {
		return fmt.Errorf("stopping kube-apiserver: %w", err)
	}
	return nil
}

// StartAPIServer starts a stopped kube-apiserver again on the same address with the same
// certificates and etcd, and returns once it serves the KCLRun CRD again, so Config,
// Client and Kubeconfig keep working. A running apiserver is left alone.
func (e *Env) StartAPIServer(ctx context.Context) error {
	e.apiMu.Lock()
	defer e.apiMu.Unlock()
	api := e.env.ControlPlane.APIServer
	if err := api.Start(); err != nil {
		return fmt.Errorf("starting kube-apiserver again: %w", err)
	}
	// /healthz answers before the CRD handlers are installed from etcd.
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for {
		var runs kclv1alpha1.KCLRunList
		err := e.Client.List(ctx, &runs, client.Limit(1))
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kube-apiserver restarted but does not serve KCLRuns: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// RestartAPIServer stops and starts kube-apiserver (see StopAPIServer, StartAPIServer).
func (e *Env) RestartAPIServer(ctx context.Context) error {
	if err := e.StopAPIServer(); err != nil {
		return err
	}
	return e.StartAPIServer(ctx)
}

// AddUser provisions a user with the given groups and returns a rest.Config that
// authenticates as it; the apiserver authorizes with RBAC, so it can do only what bindings
// grant (for tests of least privilege; impersonation works with the admin Config).
func (e *Env) AddUser(name string, groups ...string) (*rest.Config, error) {
	u, err := e.env.AddUser(envtest.User{Name: name, Groups: groups}, rest.CopyConfig(e.Config))
	if err != nil {
		return nil, fmt.Errorf("adding user %s: %w", name, err)
	}
	return u.Config(), nil
}

// CreateNamespace creates a namespace with a generated name starting with prefix.
func (e *Env) CreateNamespace(ctx context.Context, prefix string) (string, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := e.Client.Create(ctx, ns); err != nil {
		return "", fmt.Errorf("creating namespace %s-*: %w", prefix, err)
	}
	return ns.Name, nil
}

func writeKubeconfig(data []byte) (string, error) {
	dir, err := os.MkdirTemp("", "kube-harness-")
	if err != nil {
		return "", fmt.Errorf("creating kubeconfig dir: %w", err)
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("writing kubeconfig: %w", err)
	}
	return path, nil
}

// runScript runs a hack script that prints a folder as its last line of stdout.
func runScript(ctx context.Context, script string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Stderr = os.Stderr // builds report progress there
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("running %s: %w", script, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], nil
}

// RepoRoot finds the checkout from this source file, or else upwards from the working dir,
// so the harness works both in tests and in programs run from the checkout.
func RepoRoot() (string, error) {
	var starts []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if _, err := os.Stat(filepath.Join(dir, "hack", "envtest", "crds.sh")); err == nil {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("cannot find the flux-kcl-controller checkout (hack/envtest) from %v", starts)
}
