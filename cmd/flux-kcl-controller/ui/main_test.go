package ui_test

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/ui"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// waitTimeout bounds each wait for the page; the machine may be busy. Nothing asserts on
// speed: the live test logs how long the update took.
const waitTimeout = time.Minute

var (
	clusterOnce sync.Once
	env         *kube.Env
	clusterErr  error

	browserOnce   sync.Once
	browserCtx    context.Context
	browserCancel context.CancelFunc
	browserErr    error
	browserDir    string
)

func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	flag.Parse()
	code := m.Run()
	if browserCancel != nil {
		browserCancel()
		_ = os.RemoveAll(browserDir)
	}
	if env != nil {
		_ = env.Stop()
	}
	os.Exit(code)
}

// cluster is the package's real kube-apiserver, started by the first test that needs it.
func cluster(t *testing.T) *kube.Env {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts kube-apiserver and a browser")
	}
	clusterOnce.Do(func() { env, clusterErr = kube.Start(context.Background()) })
	if clusterErr != nil {
		t.Fatal(clusterErr)
	}
	return env
}

// chromiumPath is Debian's chromium; its absence fails the tests (hack/setup.sh installs
// it), it is never a reason to skip them.
func chromiumPath() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium on PATH: the web view's tests drive a real browser; install it with hack/setup.sh (make test runs it) or apt-get install chromium")
}

// browser is one headless Chromium for the package, with a fresh profile; each test opens
// its own tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	browserOnce.Do(func() {
		path, err := chromiumPath()
		if err != nil {
			browserErr = err
			return
		}
		if browserDir, err = os.MkdirTemp("", "ui-test-chromium-"); err != nil {
			browserErr = err
			return
		}
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(path),
			chromedp.Headless,
			chromedp.NoSandbox, // the tests run as root in CI containers
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.UserDataDir(browserDir),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.Flag("disable-extensions", true),
			chromedp.WindowSize(1280, 900),
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(alloc)
		// Start the browser now, so that its start-up is not counted in a test's waits.
		if err := chromedp.Do(ctx); err != nil {
			cancel()
			cancelAlloc()
			browserErr = fmt.Errorf("starting %s: %w", path, err)
			return
		}
		browserCtx = ctx
		browserCancel = func() { cancel(); cancelAlloc() }
	})
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	return browserCtx
}

// tab is a new browser tab for one test, sending headers with every request (the
// authenticating proxy's, in proxy mode).
func tab(t *testing.T, headers map[string]any) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t))
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*waitTimeout)
	t.Cleanup(cancelTimeout)
	if len(headers) > 0 {
		setHeaders := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, t, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers(headers)})
			return err
		})
		if err := chromedp.Do(ctx, setHeaders); err != nil {
			t.Fatal(err)
		}
	}
	return ctx
}

// serve runs the web view for the test on loopback.
func serve(t *testing.T, opts ui.Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if opts.Config == nil {
		opts.Config = cluster(t).Config
	}
	srv, err := ui.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// proxyOptions is the web view behind an authenticating proxy: it impersonates the user the
// proxy names, and looks for readable namespaces among all of them (the chart gives its
// service account the right to list namespaces, and nothing else but impersonation).
func proxyOptions(e *kube.Env) ui.Options {
	return ui.Options{
		Config: e.Config, Auth: ui.AuthProxy, UserHeader: "X-Forwarded-User", GroupHeader: "X-Forwarded-Groups",
		Namespaces: func(ctx context.Context) ([]string, error) {
			var list corev1.NamespaceList
			if err := e.Client.List(ctx, &list); err != nil {
				return nil, err
			}
			var names []string
			for _, ns := range list.Items {
				names = append(names, ns.Name)
			}
			return names, nil
		},
	}
}

// newRun creates a KCLRun and writes the status the controller would.
func newRun(t *testing.T, ns, name string, mutate func(*v1alpha1.KCLRun), status v1alpha1.KCLRunStatus) *v1alpha1.KCLRun {
	t.Helper()
	e := cluster(t)
	ctx := context.Background()
	run := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: name},
			Interval:  metav1.Duration{Duration: 10 * time.Minute},
			Prune:     true,
		},
	}
	if mutate != nil {
		mutate(run)
	}
	if err := e.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	status.ObservedGeneration = run.Generation
	run.Status = status
	if err := e.Client.Status().Update(ctx, run); err != nil {
		t.Fatal(err)
	}
	return run
}

// ready is the status of a run that applied rev.
func ready(rev string) v1alpha1.KCLRunStatus {
	return v1alpha1.KCLRunStatus{
		LastAppliedRevision: rev, LastAttemptedRevision: rev,
		Conditions: []metav1.Condition{condition(meta.ReadyCondition, metav1.ConditionTrue, meta.ReconciliationSucceededReason, "Applied revision: "+rev)},
	}
}

// failing is the status of a run whose program does not compile.
func failing(msg string) v1alpha1.KCLRunStatus {
	return v1alpha1.KCLRunStatus{
		LastAttemptedRevision: "main@sha1:2222222222222222222222222222222222222222",
		Conditions:            []metav1.Condition{condition(meta.ReadyCondition, metav1.ConditionFalse, "BuildFailed", msg)},
	}
}

func condition(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.Now()}
}

// namespace is a fresh namespace for one test.
func namespace(t *testing.T, prefix string) string {
	t.Helper()
	ns, err := cluster(t).CreateNamespace(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// bindUser gives user the verbs on KCLRuns in ns, reading its events, ConfigMaps and
// Deployments, and nothing anywhere else.
func bindUser(t *testing.T, ns, user string, verbs ...string) {
	t.Helper()
	e := cluster(t)
	ctx := context.Background()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"kclruns"}, Verbs: verbs},
			{APIGroups: []string{""}, Resources: []string{"events", "configmaps"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch"}},
		},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}
	for _, o := range []client.Object{role, binding} {
		if err := e.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

// text is the visible text of the page's content.
func text(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#content")))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitText waits until the content's text has want (or, with absent, no longer has it).
func waitText(t *testing.T, ctx context.Context, want string, absent bool) string {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	var s string
	for time.Now().Before(deadline) {
		s = text(t, ctx)
		if strings.Contains(s, want) != absent {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("waited %s for the page to %s %q; it shows:\n%s", waitTimeout, map[bool]string{false: "show", true: "drop"}[absent], want, s)
	return ""
}

// open navigates the tab and waits for the content.
func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#content"))); err != nil {
		t.Fatal(err)
	}
}

// waitLive waits until the page's live stream is open.
func waitLive(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(`body[data-live-open="1"]`))); err != nil {
		t.Fatal(err)
	}
}
