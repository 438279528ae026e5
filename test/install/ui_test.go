package install_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/cli"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/ui"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// uiServiceAccount is the web view's ServiceAccount in the release namespace.
const uiServiceAccount = "flux-kcl-controller-ui"

// uiValues switch the web view on with auth; proxy mode gets an authenticating proxy
// container as docs/web-view.md shows it.
func uiValues(auth string) map[string]any {
	values := map[string]any{"enabled": true, "auth": auth}
	if auth == "proxy" {
		values["proxy"] = map[string]any{"container": map[string]any{
			"name":  "oauth2-proxy",
			"image": "quay.io/oauth2-proxy/oauth2-proxy:v7.8.1",
			"args":  []any{"--http-address=0.0.0.0:4180", "--upstream=http://127.0.0.1:9080", "--pass-user-headers=true"},
			"ports": []any{map[string]any{"name": "http", "containerPort": 4180}},
			"securityContext": map[string]any{
				"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
				"capabilities": map[string]any{"drop": []any{"ALL"}},
			},
		}}
	}
	return map[string]any{"ui": values}
}

// uiObjects are the objects the chart renders for the web view only.
func uiObjects(t *testing.T, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if strings.HasSuffix(o.GetName(), "-ui") {
			out = append(out, o)
		}
	}
	return out
}

// The chart's ui.enabled runs the web view: off by default; on, its Deployment, Service,
// ServiceAccount and RBAC render, the apiserver accepts them, the container's args are flags
// `flux-kcl-controller ui` defines, and its ServiceAccount may list namespaces and (with
// auth=proxy) impersonate users and groups, nothing more (SubjectAccessReviews and a
// SelfSubjectRulesReview against the real apiserver with the rendered RBAC applied). Behind
// the proxy, the view running with exactly those rights shows a user their KCLRuns.
func TestChartUI(t *testing.T) {
	t.Run("off by default", func(t *testing.T) {
		g := NewWithT(t)
		objs := renderChart(t, nil, nil)
		g.Expect(uiObjects(t, objs)).To(BeEmpty())
	})
	for _, auth := range []string{"proxy", "token"} {
		t.Run("auth="+auth, func(t *testing.T) {
			g := NewWithT(t)
			objs := uiObjects(t, renderChart(t, nil, uiValues(auth)))
			for _, kind := range []string{"ServiceAccount", "Deployment", "Service"} {
				g.Expect(find(objs, kind, uiServiceAccount)).NotTo(BeNil(), kind)
			}
			for _, kind := range []string{"ClusterRole", "ClusterRoleBinding"} {
				g.Expect(find(objs, kind, releaseName+"-ui")).NotTo(BeNil(), kind)
			}
			checkUIDeployment(t, objs, auth)

			needsAPIServer(t)
			ctx := context.Background()
			g.Expect(dryRunApply(ctx, objs)).To(Succeed())
			tenant, err := env.CreateNamespace(ctx, "ui-tenant")
			g.Expect(err).NotTo(HaveOccurred())
			allowed := uiAccessChecks(auth == "proxy", tenant)
			g.Expect(uiMay(g, allowed)).To(Equal(noneAllowed(allowed)), "before the chart's RBAC is applied")
			applyRBAC(t, objs)
			g.Eventually(func(g Gomega) map[string]bool { return uiMay(g, allowed) }, time.Minute, 100*time.Millisecond).
				Should(Equal(allowed))
			g.Expect(uiOwnRules(t, g, tenant)).To(ConsistOf(expectedUIRules(auth == "proxy")))
			if auth == "proxy" {
				viewAsUserThroughProxy(t, g, tenant)
			}
		})
	}
}

// checkUIDeployment holds the web view's pod to the install's hardening, its args to the
// ui command's flags, and its addresses to the auth mode: loopback behind the proxy (only
// the proxy in the pod may name the user), the Service reaching the port named http.
func checkUIDeployment(t *testing.T, objs []*unstructured.Unstructured, auth string) {
	t.Helper()
	g := NewWithT(t)
	d := deployment(t, find(objs, "Deployment", uiServiceAccount))
	pod := d.Spec.Template.Spec
	g.Expect(pod.ServiceAccountName).To(Equal(uiServiceAccount))
	g.Expect(pod.SecurityContext).NotTo(BeNil())
	g.Expect(pod.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
	g.Expect(pod.SecurityContext.SeccompProfile).To(HaveValue(HaveField("Type", corev1.SeccompProfileTypeRuntimeDefault)))
	view := pod.Containers[0]
	g.Expect(view.Name).To(Equal("ui"))
	sc := view.SecurityContext
	g.Expect(sc).NotTo(BeNil())
	g.Expect(sc.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
	g.Expect(sc.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
	g.Expect(sc.Capabilities).To(HaveValue(HaveField("Drop", ConsistOf(corev1.Capability("ALL")))))
	g.Expect(view.VolumeMounts).To(ContainElement(HaveField("MountPath", "/tmp")), "the diff's artifact cache on a read-only root")

	root := cli.NewRootCommand(cli.Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	cmd, rest, err := root.Find(view.Args)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cmd.Name()).To(Equal("ui"), "args %v", view.Args)
	g.Expect(cmd.ParseFlags(rest)).To(Succeed(), "args %v", view.Args)
	g.Expect(cmd.Flags().Args()).To(BeEmpty(), "args %v", view.Args)
	gotAuth, _ := cmd.Flags().GetString("auth")
	addr, _ := cmd.Flags().GetString("address")
	g.Expect(gotAuth).To(Equal(auth))
	host, port, err := net.SplitHostPort(addr)
	g.Expect(err).NotTo(HaveOccurred())

	// kubelet's probes reach the listener --health-address opens, whatever the auth.
	healthAddr, _ := cmd.Flags().GetString("health-address")
	_, healthPort, err := net.SplitHostPort(healthAddr)
	g.Expect(err).NotTo(HaveOccurred(), "--health-address %q", healthAddr)
	g.Expect(view.Ports).To(ContainElement(And(HaveField("Name", "healthz"), HaveField("ContainerPort", portOf(":"+healthPort)))))
	g.Expect(view.LivenessProbe).NotTo(BeNil())
	g.Expect(view.LivenessProbe.HTTPGet).To(HaveValue(And(HaveField("Path", "/healthz"), HaveField("Port.StrVal", "healthz"))))
	g.Expect(view.ReadinessProbe).NotTo(BeNil())
	g.Expect(view.ReadinessProbe.HTTPGet).To(HaveValue(And(HaveField("Path", "/readyz"), HaveField("Port.StrVal", "healthz"))))

	var httpPorts []corev1.ContainerPort
	for _, c := range pod.Containers {
		for _, p := range c.Ports {
			if p.Name == "http" {
				httpPorts = append(httpPorts, p)
			}
		}
	}
	g.Expect(httpPorts).To(HaveLen(1), "one port named http, the Service's target")
	if auth == "proxy" {
		g.Expect(host).To(Equal("127.0.0.1"), "only the proxy in the pod reaches the view")
		g.Expect(pod.Containers).To(HaveLen(2))
		g.Expect(view.Ports).To(ConsistOf(HaveField("Name", "healthz")), "the view's pages are not exposed beside the proxy")
		userHeader, _ := cmd.Flags().GetString("user-header")
		g.Expect(userHeader).To(Equal("X-Forwarded-User"))
	} else {
		g.Expect(host).To(BeEmpty(), "token: the view itself listens on the pod's address")
		g.Expect(fmt.Sprint(httpPorts[0].ContainerPort)).To(Equal(port))
	}

	svc := find(objs, "Service", uiServiceAccount)
	var s corev1.Service
	convert(t, svc, &s)
	g.Expect(s.Spec.Ports).To(ConsistOf(HaveField("TargetPort.StrVal", "http")))
	for k, v := range s.Spec.Selector {
		g.Expect(d.Spec.Template.Labels).To(HaveKeyWithValue(k, v), "the Service selects the view's pods")
	}
}

// uiAccessChecks are what the view's ServiceAccount may do, by request: list namespaces,
// impersonate users and groups when behind a proxy, and nothing of what the view shows.
func uiAccessChecks(proxy bool, tenant string) map[string]bool {
	return map[string]bool{
		"list namespaces":                                     true,
		"impersonate users":                                   proxy,
		"impersonate groups":                                  proxy,
		"get namespaces":                                      false,
		"watch namespaces":                                    false,
		"impersonate serviceaccounts":                         false,
		"impersonate userextras/scopes":                       false,
		"list kclruns":                                        false,
		"list kclruns in " + tenant:                           false,
		"get kclruns in " + tenant:                            false,
		"patch kclruns in " + tenant:                          false,
		"list imagerollouts":                                  false,
		"patch imagerollouts in " + tenant:                    false,
		"get secrets in " + tenant:                            false,
		"list events in " + tenant:                            false,
		"list deployments.apps in " + tenant:                  false,
		"create serviceaccounts/token in " + releaseNamespace: false,
	}
}

func noneAllowed(checks map[string]bool) map[string]bool {
	none := map[string]bool{}
	for k := range checks {
		none[k] = false
	}
	return none
}

// uiMay asks the apiserver's authorizer (SubjectAccessReview) whether the view's
// ServiceAccount may make each request of checks.
func uiMay(g Gomega, checks map[string]bool) map[string]bool {
	ctx := context.Background()
	got := map[string]bool{}
	for check := range checks {
		verb, rest, _ := strings.Cut(check, " ")
		resource, ns, _ := strings.Cut(rest, " in ")
		attrs := &authorizationv1.ResourceAttributes{Verb: verb, Namespace: ns, Resource: resource}
		if r, sub, ok := strings.Cut(resource, "/"); ok {
			attrs.Resource, attrs.Subresource = r, sub
		}
		if r, group, ok := strings.Cut(attrs.Resource, "."); ok {
			attrs.Resource, attrs.Group = r, group
		}
		switch attrs.Resource {
		case "kclruns", "imagerollouts":
			attrs.Group = v1alpha1.GroupVersion.Group
		case "userextras":
			attrs.Group = "authentication.k8s.io"
		}
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + releaseNamespace + ":" + uiServiceAccount,
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + releaseNamespace, "system:authenticated"},
			ResourceAttributes: attrs,
		}}
		g.Expect(env.Client.Create(ctx, review)).To(Succeed())
		got[check] = review.Status.Allowed
	}
	return got
}

// uiOwnRules are the rules the view's ServiceAccount holds beyond those every
// ServiceAccount holds (another, unbound ServiceAccount of the namespace), as the apiserver
// lists them to the account itself (SelfSubjectRulesReview) in a tenant's namespace.
func uiOwnRules(t *testing.T, g Gomega, ns string) []string {
	t.Helper()
	rules := func(sa string) map[string]bool {
		cfg, err := env.AddUser("system:serviceaccount:"+releaseNamespace+":"+sa,
			"system:serviceaccounts", "system:serviceaccounts:"+releaseNamespace)
		g.Expect(err).NotTo(HaveOccurred())
		c, err := client.New(cfg, client.Options{Scheme: kube.Scheme()})
		g.Expect(err).NotTo(HaveOccurred())
		review := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}
		g.Expect(c.Create(context.Background(), review)).To(Succeed())
		g.Expect(review.Status.Incomplete).To(BeFalse(), review.Status.EvaluationError)
		out := map[string]bool{}
		for _, r := range review.Status.ResourceRules {
			for _, verb := range r.Verbs {
				for _, group := range r.APIGroups {
					for _, res := range r.Resources {
						out[fmt.Sprintf("%s %s/%s %v", verb, group, res, r.ResourceNames)] = true
					}
				}
			}
		}
		for _, r := range review.Status.NonResourceRules {
			for _, verb := range r.Verbs {
				for _, url := range r.NonResourceURLs {
					out[verb+" "+url] = true
				}
			}
		}
		return out
	}
	baseline, own := rules("ui-baseline-unbound"), rules(uiServiceAccount)
	var extra []string
	for r := range own {
		if !baseline[r] {
			extra = append(extra, r)
		}
	}
	sort.Strings(extra)
	return extra
}

func expectedUIRules(proxy bool) []string {
	rules := []string{"list /namespaces []"}
	if proxy {
		rules = append(rules, "impersonate /users []", "impersonate /groups []")
	}
	return rules
}

// viewAsUserThroughProxy runs the view as the chart runs it behind the proxy, with the
// ServiceAccount's rights only, and asks for the list as alice, who may read KCLRuns in the
// tenant's namespace only: her KCLRun shows, and no request of the view's own is refused.
func viewAsUserThroughProxy(t *testing.T, g Gomega, tenant string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const alice = "alice@example.com"
	bindReader(t, g, tenant, alice)
	run := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "seen-through-the-proxy"},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app"},
			Interval:  metav1.Duration{Duration: time.Hour},
		},
	}
	g.Expect(env.Client.Create(ctx, run)).To(Succeed())

	forbidden := &forbiddenRecorder{}
	cfg := asServiceAccount(t, uiServiceAccount, forbidden)
	own, err := client.New(cfg, client.Options{Scheme: kube.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	srv, err := ui.New(ctx, ui.Options{
		Config: cfg, Auth: ui.AuthProxy, UserHeader: "X-Forwarded-User", GroupHeader: "X-Forwarded-Groups",
		// As `flux-kcl-controller ui` looks for a user's namespaces: those its own
		// ServiceAccount may list.
		Namespaces: func(ctx context.Context) ([]string, error) {
			var list corev1.NamespaceList
			if err := own.List(ctx, &list); err != nil {
				return nil, err
			}
			var names []string
			for _, ns := range list.Items {
				names = append(names, ns.Name)
			}
			return names, nil
		},
	})
	g.Expect(err).NotTo(HaveOccurred())
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	page := func(g Gomega) string {
		req, err := http.NewRequest(http.MethodGet, hs.URL+"/kclruns?namespace="+tenant, nil)
		g.Expect(err).NotTo(HaveOccurred())
		req.Header.Set("X-Forwarded-User", alice)
		resp, err := http.DefaultClient.Do(req)
		g.Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
		return string(body)
	}
	g.Eventually(page, time.Minute, 200*time.Millisecond).Should(ContainSubstring(run.Name))
	var own403 []string
	for _, f := range forbidden.list() {
		if !strings.Contains(f, " as ") {
			own403 = append(own403, f)
		}
	}
	g.Expect(own403).To(BeEmpty(), "the view's ServiceAccount was refused a request of its own")
}

// bindReader lets user read KCLRuns and ImageRollouts in ns, nothing else.
func bindReader(t *testing.T, g Gomega, ns, user string) {
	t.Helper()
	ctx := context.Background()
	g.Expect(env.Client.Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "reader"},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"kclruns", "imagerollouts"},
			Verbs: []string{"get", "list", "watch"},
		}},
	})).To(Succeed())
	g.Expect(env.Client.Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	})).To(Succeed())
}
