package tenancy

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// tenantAccount is every tenant's ServiceAccount: --default-service-account and
// --default-kubeconfig-service-account name it, and it may act only in its namespace.
const tenantAccount = "tenant"

// marker is planted in the quiet tenant's files, Secret and ImagePolicy; no process may
// ever log it, and no other tenant's objects may carry it.
const marker = "QUIET-TENANT-MARKER-7f3a9c"

// allowedPackageHost is the one package host the compiler's policy adds to its default.
const allowedPackageHost = "127.0.0.2"

// platform is the locked-down controller every case shares.
type platform struct {
	t         *testing.T
	logDir    string
	artifacts *artifactserver.Server
	events    *fault.EventReceiver
	seq       atomic.Int64
}

func startPlatform(t *testing.T) *platform {
	t.Helper()
	if suite.Skip != "" {
		t.Skip(suite.Skip)
	}
	p := &platform{t: t}
	var err error
	if p.logDir, err = os.MkdirTemp("", "fkc-tenancy-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("service logs are kept in %s", p.logDir)
			return
		}
		_ = os.RemoveAll(p.logDir)
	})
	nats, err := natsserver.Start(natsserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nats.Stop)
	if p.artifacts, err = artifactserver.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.artifacts.Close)
	if p.events, err = fault.StartEventReceiver(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.events.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	compiler, resolver := p.freeAddr(), p.freeAddr()
	// The compiler's package policy is its default (KCL's registry only, no private or
	// link-local network, no cluster-internal names) plus one allowed package host, the
	// loopback address 127.0.0.2 (Linux answers on all of 127.0.0.0/8): case d's registry
	// there redirects to 127.0.0.1, which stays refused.
	p.start(ctx, "compiler", []string{"--grpc-addr=" + compiler, "--metrics-addr=", "--health-addr=",
		"--allowed-package-hosts=ghcr.io," + allowedPackageHost, "--allowed-package-networks=" + allowedPackageHost + "/32",
		"--artifact-cache-dir=" + filepath.Join(p.logDir, "compiler-cache")}, fault.PortReady(compiler))
	p.start(ctx, "resolver", []string{"--grpc-addr=" + resolver, "--metrics-addr=", "--health-addr=",
		"--artifact-cache-dir=" + filepath.Join(p.logDir, "resolver-cache")}, fault.PortReady(resolver))
	health := p.freeAddr()
	p.start(ctx, "applier", []string{
		"--nats-url=" + nats.URL(), "--compiler-addr=" + compiler, "--resolver-addr=" + resolver,
		"--metrics-addr=", "--health-addr=" + health, "--events-addr=" + p.events.URL(),
		"--max-retry-backoff=5s",
		"--no-cross-namespace-refs",
		"--default-service-account=" + tenantAccount,
		"--default-kubeconfig-service-account=" + tenantAccount,
		"--feature-gates=ObjectLevelWorkloadIdentity=true",
		"--log-level=debug",
	}, fault.HTTPReady("http://"+health+"/readyz"))
	watcherHealth := p.freeAddr()
	p.start(ctx, "watcher", []string{"--nats-url=" + nats.URL(), "--metrics-addr=0",
		"--health-addr=" + watcherHealth, "--log-level=debug"}, fault.HTTPReady("http://"+watcherHealth+"/readyz"))
	return p
}

func (p *platform) freeAddr() string {
	addr, err := fault.FreeAddr()
	if err != nil {
		p.t.Fatal(err)
	}
	return addr
}

func (p *platform) start(ctx context.Context, name string, args []string, ready func(context.Context) error) {
	log, err := os.OpenFile(filepath.Join(p.logDir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	proc := &fault.Process{Name: name, Path: filepath.Join(suite.Bin, name), Args: args,
		Env: []string{"KUBECONFIG=" + suite.Env.Kubeconfig()}, Log: log, Ready: ready}
	p.t.Cleanup(func() {
		if proc.Running() {
			_ = proc.Stop(10 * time.Second)
		}
		_ = log.Close()
	})
	if err := proc.Start(ctx); err != nil {
		p.t.Fatalf("%v (log in %s)", err, p.logDir)
	}
}

// newTenant makes a namespace with the tenant ServiceAccount, admin on its namespace only.
func (p *platform) newTenant(ctx context.Context, prefix string) string {
	p.t.Helper()
	g := NewWithT(p.t)
	ns, err := suite.Env.CreateNamespace(ctx, prefix)
	g.Expect(err).NotTo(HaveOccurred())
	c := suite.Env.Client
	g.Expect(c.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tenantAccount}})).To(Succeed())
	// A Role of its own: envtest runs no controller-manager to fill the aggregated "admin".
	g.Expect(c.Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant-admin"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}},
	})).To(Succeed())
	g.Expect(c.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "tenant-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: tenantAccount}},
	})).To(Succeed())
	return ns
}

// kclRun publishes files as the GitRepository "name" and creates the KCLRun "name" on it.
func (p *platform) kclRun(ctx context.Context, ns, name string, files map[string]string, mutate func(*v1alpha1.KCLRun)) {
	p.t.Helper()
	g := NewWithT(p.t)
	revision := fmt.Sprintf("main@sha1:%040d", p.seq.Add(1))
	a, err := p.artifacts.PublishFiles(artifactserver.ArtifactPath(sourcev1.GitRepositoryKind, ns, name, ""), files, revision)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = artifactserver.CreateSource(ctx, suite.Env.Client, sourcev1.GitRepositoryKind, ns, name, a)
	g.Expect(err).NotTo(HaveOccurred())
	run := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef:     v1alpha1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: name},
			Interval:      metav1.Duration{Duration: time.Hour},
			RetryInterval: &metav1.Duration{Duration: 5 * time.Second},
			Prune:         true,
		},
	}
	if mutate != nil {
		mutate(run)
	}
	g.Expect(suite.Env.Client.Create(ctx, run)).To(Succeed())
}

func configMapProgram(name, value string) string {
	return fmt.Sprintf(`items = [{apiVersion = "v1", kind = "ConfigMap", metadata.name = %q, data.value = %q}]`+"\n", name, value)
}

func ready(ctx context.Context, g Gomega, ns, name string) *metav1.Condition {
	run := &v1alpha1.KCLRun{}
	g.Expect(suite.Env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, run)).To(Succeed())
	c := conditions.Get(run, meta.ReadyCondition)
	g.Expect(c).NotTo(BeNil())
	return c
}

// refused checks a bad case: Ready=False with the reason and every message fragment, a
// warning event of that reason on the KCLRun, and no ConfigMap "leak" in its namespace.
func (p *platform) refused(t *testing.T, ctx context.Context, ns, name, reason string, fragments ...string) {
	t.Helper()
	g := NewWithT(t)
	g.Eventually(func(g Gomega) {
		c := ready(ctx, g, ns, name)
		g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(c.Reason).To(Equal(reason))
		for _, f := range fragments {
			g.Expect(c.Message).To(ContainSubstring(f))
		}
	}, "2m", "250ms").Should(Succeed())
	g.Eventually(func() bool {
		for _, ev := range p.events.Events() {
			if ev.InvolvedObject.Namespace == ns && ev.InvolvedObject.Name == name &&
				ev.Severity == eventv1.EventSeverityError && ev.Reason == reason {
				return true
			}
		}
		return false
	}, "1m", "250ms").Should(BeTrue(), "a warning event %s on %s/%s", reason, ns, name)
	err := suite.Env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "leak"}, &corev1.ConfigMap{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "nothing applied for %s/%s", ns, name)
}

// The matrix of issue 17, one case per subtest, beside a quiet tenant whose files, Secret
// and ImagePolicy carry the marker.
func TestTenancyMatrix(t *testing.T) {
	p := startPlatform(t)
	ctx := context.Background()
	g := NewWithT(t)

	quiet := p.newTenant(ctx, "quiet")
	g.Expect(suite.Env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: quiet, Name: "token"},
		StringData: map[string]string{"token": marker}})).To(Succeed())
	_, err := imagepolicy.Create(ctx, suite.Env.Client, quiet, "web", imagev1.ImageRef{Name: "ghcr.io/quiet/web", Tag: marker})
	g.Expect(err).NotTo(HaveOccurred())
	p.kclRun(ctx, quiet, "app", map[string]string{"main.k": configMapProgram("quiet", "calm")}, nil)
	// A file of the quiet tenant on the compiler's disk, as its unpacked artifact would be.
	foreign := filepath.Join(p.logDir, "quiet-kcl.yaml")
	g.Expect(os.WriteFile(foreign, []byte("kcl_options:\n  - key: token\n    value: "+marker+"\n"), 0o644)).To(Succeed())
	quietReady := func(g Gomega) {
		c := ready(ctx, g, quiet, "app")
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue), c.Message)
	}
	g.Eventually(quietReady, "2m", "250ms").Should(Succeed())

	leak := `items = [{apiVersion = "v1", kind = "ConfigMap", metadata.name = "leak", data.token = option("token") or "unset"}]` + "\n"

	t.Run("a settings path escape", func(t *testing.T) {
		ns := p.newTenant(ctx, "settings")
		p.kclRun(ctx, ns, "escape", map[string]string{"main.k": leak}, func(k *v1alpha1.KCLRun) {
			k.Spec.Config = &v1alpha1.ConfigSpec{Settings: []string{foreign}}
		})
		p.refused(t, ctx, ns, "escape", v1alpha1.CompileFailedReason, "spec.config.settings", "outside the program root")
		p.kclRun(ctx, ns, "dotdot", map[string]string{"main.k": leak}, func(k *v1alpha1.KCLRun) {
			k.Spec.Config = &v1alpha1.ConfigSpec{Settings: []string{"../../../../../../../../" + strings.TrimPrefix(foreign, "/")}}
		})
		p.refused(t, ctx, ns, "dotdot", v1alpha1.CompileFailedReason, "spec.config.settings", "outside the program root")
	})

	t.Run("b symlink to another tenant's file", func(t *testing.T) {
		ns := p.newTenant(ctx, "symlink")
		g := NewWithT(t)
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		g.Expect(tw.WriteHeader(&tar.Header{Name: "main.k", Mode: 0o644, Size: int64(len(leak))})).To(Succeed())
		_, err := tw.Write([]byte(leak))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(tw.WriteHeader(&tar.Header{Name: "kcl.yaml", Typeflag: tar.TypeSymlink, Linkname: foreign})).To(Succeed())
		g.Expect(tw.Close()).To(Succeed())
		g.Expect(gz.Close()).To(Succeed())
		revision := fmt.Sprintf("main@sha1:%040d", p.seq.Add(1))
		a, err := p.artifacts.PublishBytes(artifactserver.ArtifactPath(sourcev1.GitRepositoryKind, ns, "link", ""), buf.Bytes(), revision)
		g.Expect(err).NotTo(HaveOccurred())
		_, err = artifactserver.CreateSource(ctx, suite.Env.Client, sourcev1.GitRepositoryKind, ns, "link", a)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(suite.Env.Client.Create(ctx, &v1alpha1.KCLRun{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "link"},
			Spec: v1alpha1.KCLRunSpec{
				SourceRef:     v1alpha1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "link"},
				Interval:      metav1.Duration{Duration: time.Hour},
				RetryInterval: &metav1.Duration{Duration: 5 * time.Second},
				Config:        &v1alpha1.ConfigSpec{Settings: []string{"kcl.yaml"}},
			},
		})).To(Succeed())
		// The symlink is skipped at unpacking, so the setting names no file of the artifact:
		// reported as a missing spec.path is, naming spec.config.settings.
		p.refused(t, ctx, ns, "link", v1alpha1.ArtifactFailedReason, "spec.config.settings", `"kcl.yaml" is not in the artifact`)
	})

	t.Run("c package URL to a refused address", func(t *testing.T) {
		ns := p.newTenant(ctx, "packages")
		for name, url := range map[string]string{
			"loopback": "oci://127.0.0.1:5000/evil",
			"metadata": "oci://169.254.169.254/latest/meta-data",
			"service":  "oci://registry.flux-system.svc.cluster.local/evil",
		} {
			mod := fmt.Sprintf("[package]\nname = \"app\"\n\n[dependencies]\nevil = { oci = %q, tag = \"1\" }\n", url)
			p.kclRun(ctx, ns, name, map[string]string{"main.k": leak, "kcl.mod": mod}, nil)
		}
		p.refused(t, ctx, ns, "loopback", v1alpha1.DependencyRefusedReason, "127.0.0.1")
		p.refused(t, ctx, ns, "metadata", v1alpha1.DependencyRefusedReason, "169.254.169.254")
		p.refused(t, ctx, ns, "service", v1alpha1.DependencyRefusedReason, "registry.flux-system.svc.cluster.local")
	})

	t.Run("d a redirect from an allowed host to a refused one", func(t *testing.T) {
		g := NewWithT(t)
		var hits atomic.Int64
		hidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			http.NotFound(w, r)
		}))
		t.Cleanup(hidden.Close)
		lis, err := net.Listen("tcp", allowedPackageHost+":0")
		g.Expect(err).NotTo(HaveOccurred(), "listening on %s", allowedPackageHost)
		front := &httptest.Server{Listener: lis, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, hidden.URL+r.URL.RequestURI(), http.StatusFound)
		})}}
		front.Start()
		t.Cleanup(front.Close)
		// Git over plain HTTP: the policy lets http Git URLs through by host, and the
		// redirect is checked by the dialer after DNS, as every connection is.
		ns := p.newTenant(ctx, "redirect")
		mod := fmt.Sprintf("[package]\nname = \"app\"\n\n[dependencies]\nlib = { git = %q, tag = \"v1\" }\n", front.URL+"/lib.git")
		p.kclRun(ctx, ns, "app", map[string]string{"main.k": leak, "kcl.mod": mod}, nil)
		p.refused(t, ctx, ns, "app", v1alpha1.DependencyRefusedReason, `"127.0.0.1"`, "--allowed-package-networks")
		g.Expect(hits.Load()).To(BeZero(), "the refused server was reached")
		g.Eventually(quietReady, "1m", "250ms").Should(Succeed())
	})

	t.Run("e ImagePolicy marker naming a foreign namespace", func(t *testing.T) {
		ns := p.newTenant(ctx, "imagepolicy")
		program := fmt.Sprintf(`_image = "ghcr.io/org/web:1.0.0" # {"$imagepolicy": "%s:web"}
items = [{apiVersion = "v1", kind = "ConfigMap", metadata.name = "leak", data.image = _image}]
`, quiet)
		p.kclRun(ctx, ns, "app", map[string]string{"main.k": program}, nil)
		p.refused(t, ctx, ns, "app", v1alpha1.ImagePolicyHeldReason, quiet, "web")
	})

	t.Run("f Secret reference in a foreign namespace", func(t *testing.T) {
		ns := p.newTenant(ctx, "secretref")
		// argumentsReferences and kubeConfig.secretRef name only a Secret of the KCLRun's
		// own namespace; a name cannot reach another namespace. Impersonated as the
		// tenant, even a same-named Secret of its own it lacks is a plain not-found.
		p.kclRun(ctx, ns, "app", map[string]string{"main.k": leak}, func(k *v1alpha1.KCLRun) {
			k.Spec.KubeConfig = &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: "token"}}
		})
		p.refused(t, ctx, ns, "app", v1alpha1.ReconciliationFailed, "'"+ns+"/token'")
	})

	t.Run("g kubeConfig.configMapRef to the controller's own cluster", func(t *testing.T) {
		ns := p.newTenant(ctx, "ownclusterx")
		// No ServiceAccount "tenant" here: under --default-kubeconfig-service-account the
		// ConfigMap without serviceAccountName must not fall back to the controller's token.
		g := NewWithT(t)
		g.Expect(suite.Env.Client.Delete(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tenantAccount}})).To(Succeed())
		g.Expect(suite.Env.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "own"}, Data: map[string]string{
			meta.KubeConfigKeyProvider: "generic",
			meta.KubeConfigKeyAddress:  suite.Env.Config.Host,
			meta.KubeConfigKeyCACert:   string(suite.Env.Config.CAData),
		}})).To(Succeed())
		p.kclRun(ctx, ns, "app", map[string]string{"main.k": fmt.Sprintf(
			`items = [{apiVersion = "v1", kind = "ConfigMap", metadata = {name = "leak", namespace = %q}, data.value = "x"}]`+"\n", quiet)},
			func(k *v1alpha1.KCLRun) {
				k.Spec.KubeConfig = &meta.KubeConfigReference{ConfigMapRef: &meta.LocalObjectReference{Name: "own"}}
			})
		p.refused(t, ctx, ns, "app", v1alpha1.ReconciliationFailed, "multi-tenant workload identity lockdown")
		err := suite.Env.Client.Get(ctx, client.ObjectKey{Namespace: quiet, Name: "leak"}, &corev1.ConfigMap{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "nothing applied in the quiet tenant's namespace")
	})

	t.Run("h a burst beside a quiet tenant", func(t *testing.T) {
		ns := p.newTenant(ctx, "burst")
		const burst = 100
		for i := range burst {
			p.kclRun(ctx, ns, fmt.Sprintf("app-%d", i), map[string]string{"main.k": configMapProgram(fmt.Sprintf("cm-%d", i), "v")}, nil)
		}
		p.kclRun(ctx, quiet, "change", map[string]string{"main.k": configMapProgram("quiet-change", "calm")}, nil)
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			c := ready(ctx, g, quiet, "change")
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue), c.Message)
		}, "3m", "250ms").Should(Succeed())
	})

	// The quiet tenant is still Ready, and no process logged its marker.
	g.Eventually(quietReady, "1m", "250ms").Should(Succeed())
	logs, err := filepath.Glob(filepath.Join(p.logDir, "*.log"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, l := range logs {
		data, err := os.ReadFile(l)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(strings.Contains(string(data), marker)).To(BeFalse(), "%s logs the quiet tenant's marker", filepath.Base(l))
	}
}
