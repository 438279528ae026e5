package driver

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// badSide names the broken tenants' namespaces (lt-bad-NNNN).
const badSide tenant.Side = "bad"

// badKind is one way a tenant's input can be broken, and what its KCLRun
// must then say.
type badKind struct {
	name    string
	reason  string
	message *regexp.Regexp
	// artifact publishes the tenant's broken artifact.
	artifact func(d *driver, t tenant.Tenant, path string) (*meta.Artifact, error)
	// policy is the ImagePolicy's latest image (default: the tenant's own repository).
	policy func(t tenant.Tenant) imagev1.ImageRef
}

func programArtifact(src string) func(d *driver, t tenant.Tenant, path string) (*meta.Artifact, error) {
	return func(d *driver, _ tenant.Tenant, path string) (*meta.Artifact, error) {
		return d.artifacts.PublishFiles(path, map[string]string{tenant.ProgramFile: src}, "")
	}
}

// badKinds are the broken inputs, each held within the controller's
// default limits (64 MiB of output, 100 MiB artifacts, 30 s compiles).
var badKinds = []badKind{
	{
		name: "syntax error", reason: v1alpha1.CompileFailedReason, message: regexp.MustCompile(`main\.k:\d+`),
		artifact: programArtifact("items = [\n    {apiVersion = \"v1\"\n"),
	},
	{
		name: "infinite recursion", reason: v1alpha1.CompileFailedReason, message: regexp.MustCompile(`(?i)recursion`),
		artifact: programArtifact("f = lambda x {\n    f(x)\n}\nitems = [f(1)]\n"),
	},
	{
		name: "output bomb", reason: v1alpha1.CompileFailedReason, message: regexp.MustCompile(`output is larger than`),
		artifact: programArtifact(`items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = "bomb-${i}"}
    data = {x = "x" * 100000}
} for i in range(1000)]
`),
	},
	{
		name: "1 GiB artifact", reason: v1alpha1.ArtifactFailedReason, message: regexp.MustCompile(`too large`),
		artifact: func(d *driver, _ tenant.Tenant, path string) (*meta.Artifact, error) {
			return d.artifacts.PublishZeros(path, 1<<30, "")
		},
	},
	{
		name: "path-traversal tarball", reason: v1alpha1.ArtifactFailedReason, message: regexp.MustCompile(`outside its root`),
		artifact: func(d *driver, _ tenant.Tenant, path string) (*meta.Artifact, error) {
			data, err := artifactserver.TarGz(map[string]string{tenant.ProgramFile: "items = []\n", "../../../escape.k": "escaped = True\n"})
			if err != nil {
				return nil, err
			}
			return d.artifacts.PublishBytes(path, data, "")
		},
	},
	{
		name: "foreign-repository policy", reason: v1alpha1.ImagePolicyHeldReason, message: regexp.MustCompile(`RepositoryMismatch`),
		artifact: func(d *driver, t tenant.Tenant, path string) (*meta.Artifact, error) {
			return d.artifacts.PublishFiles(path, map[string]string{tenant.ProgramFile: t.Program("r1", firstTag)}, "")
		},
		policy: func(tenant.Tenant) imagev1.ImageRef {
			return imagev1.ImageRef{Name: "docker.io/evil/web", Tag: "6.6.6"}
		},
	},
}

// badInputIndexOffset numbers the bad-input scenario's healthy tenants.
const badInputIndexOffset = 50000

// kinds are the broken inputs Options.BadKinds selects.
func (d *driver) kinds() []badKind {
	if len(d.opts.BadKinds) == 0 {
		return badKinds
	}
	var out []badKind
	for _, k := range badKinds {
		if slices.Contains(d.opts.BadKinds, strings.ReplaceAll(strings.ToLower(k.name), " ", "-")) {
			out = append(out, k)
		}
	}
	return out
}

// badTenantCount is how many broken tenants go beside n healthy ones.
func (d *driver) badTenantCount(n int) int {
	if d.opts.BadTenants >= 0 {
		return d.opts.BadTenants
	}
	return max(len(d.kinds()), n/20) // 5%, every kind at least once
}

// runBadInput repeats the KCL first sync and the policy latency on a fresh
// cluster with broken tenants created among the healthy ones, and checks
// that every broken KCLRun ends with its error on its status. Later rounds
// repeat the first sync only.
func (d *driver) runBadInput(ctx context.Context, size *report.Size) error {
	n, bad, kinds := size.N, d.badTenantCount(size.N), d.kinds()
	if bad == 0 || len(kinds) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d.logf("N=%d: bad input: %d broken tenants among the healthy ones", n, bad)
	cl, stop, err := d.startClusterAndArtifacts(ctx)
	if err != nil {
		return err
	}
	defer stop()

	// Numbered apart from the first sync's tenants, so that an existing
	// cluster (--kubeconfig, the smoke test) takes them too.
	healthy := tenants(tenant.KCL, n)
	for i := range healthy {
		healthy[i].Index += badInputIndexOffset
	}
	if err := parallel(ctx, n, func(ctx context.Context, i int) error { return d.prepareTenant(ctx, cl.client, healthy[i]) }); err != nil {
		return err
	}
	broken := make([]tenant.Tenant, bad)
	for i := range broken {
		broken[i] = tenant.Tenant{Index: i, Side: badSide}
	}
	if err := parallel(ctx, bad, func(ctx context.Context, i int) error {
		return d.prepareBadTenant(ctx, cl.client, broken[i], kinds[i%len(kinds)])
	}); err != nil {
		return err
	}
	tracker := newReadyTrackerFor(healthy)
	if err := watchRunners(ctx, cl.cfg, kclRunResource, tracker); err != nil {
		return err
	}
	images, revisions := newChangeWaiter(), newChangeWaiter()
	if err := watchObjects(ctx, cl.cfg, images, revisions); err != nil {
		return err
	}
	ctrl, err := d.startKCL(ctx, cl.cfg, cl.kubeconfig)
	if err != nil {
		return err
	}
	defer ctrl.stop()

	// The broken runners are spread through the healthy ones, so they hold
	// workers and retry all through the first sync.
	all := make([]tenant.Tenant, 0, n+bad)
	for i, t := range healthy {
		all = append(all, t)
		if j := i * bad / n; (i+1)*bad/n > j {
			all = append(all, broken[j])
		}
	}
	fs, err := d.firstSync(ctx, cl, ctrl, all, tracker)
	if err != nil {
		return err
	}
	d.logf("N=%d: bad input: %d/%d healthy KCLRuns Ready in %.1fs", n, fs.Ready, n, fs.Seconds)
	if out := size.BadInput; out != nil {
		// A later round: the first sync only.
		out.HealthyRounds = append(out.HealthyRounds, fs.Seconds)
		out.HealthyReady = min(out.HealthyReady, fs.Ready)
		return nil
	}
	out := &report.BadInput{Tenants: bad, Healthy: fs.Seconds, HealthyRounds: []float64{fs.Seconds}, HealthyReady: fs.Ready}
	if out.Policy, err = d.policyLatency(ctx, cl.client, healthy, images); err != nil {
		return err
	}
	d.logf("N=%d: bad input: ImagePolicy → Deployment p50 %.0fms p99 %.0fms (%d missed)", n, out.Policy.P50*1000, out.Policy.P99*1000, out.Policy.Missed)
	out.Kinds = d.checkBroken(ctx, cl.client, broken, kinds)
	size.BadInput = out
	return nil
}

func (d *driver) prepareBadTenant(ctx context.Context, c client.Client, t tenant.Tenant, kind badKind) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: t.Namespace()}}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", t.Namespace(), err)
	}
	latest := imagev1.ImageRef{Name: t.ImageRepository(), Tag: firstTag}
	if kind.policy != nil {
		latest = kind.policy(t)
	}
	if _, err := imagepolicy.Create(ctx, c, t.Namespace(), tenant.Name, latest); err != nil {
		return err
	}
	a, err := kind.artifact(d, t, artifactserver.ArtifactPath(sourcev1.GitRepositoryKind, t.Namespace(), tenant.Name, "r1.tar.gz"))
	if err != nil {
		return fmt.Errorf("publishing %s for %s: %w", kind.name, t.Namespace(), err)
	}
	_, err = artifactserver.CreateSource(ctx, c, sourcev1.GitRepositoryKind, t.Namespace(), tenant.Name, a)
	return err
}

// checkBroken waits (ChangeTimeout) for every broken KCLRun to be
// Ready=False with its kind's reason and message, and sums up each kind.
func (d *driver) checkBroken(ctx context.Context, c client.Client, broken []tenant.Tenant, want []badKind) []report.BadKind {
	kinds := make([]report.BadKind, len(want))
	for i, k := range want {
		kinds[i] = report.BadKind{Name: k.name, WantReason: k.reason}
	}
	deadline := time.Now().Add(d.opts.ChangeTimeout)
	for i, t := range broken {
		k, got := want[i%len(want)], &kinds[i%len(want)]
		got.Count++
		var reason, message string
		for {
			run := &v1alpha1.KCLRun{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: t.Namespace(), Name: tenant.Name}, run); err == nil {
				if ready := conditions.Get(run, meta.ReadyCondition); ready != nil && ready.Status == metav1.ConditionFalse {
					reason, message = ready.Reason, ready.Message
				}
			}
			if (reason == k.reason && k.message.MatchString(message)) || time.Now().After(deadline) || ctx.Err() != nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if reason == k.reason && k.message.MatchString(message) {
			got.Reported++
		}
		got.Reason, got.Message = reason, truncate(message, 200)
	}
	for _, k := range kinds {
		d.logf("bad input: %s: %d/%d reported %s (%s)", k.Name, k.Reported, k.Count, k.WantReason, k.Message)
	}
	return kinds
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
