package faults

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// brokenTenant is a tenant whose input is bad, and the status it must end with.
type brokenTenant struct {
	name    string
	tenant  *tenant
	reason  string
	message *regexp.Regexp
	// after runs once the tenant exists (to break its ImagePolicy).
	after func(ctx context.Context, tn *tenant) error
}

// maxOutputBytes is the compilers' --max-output-bytes in this test (default 64 MiB).
const maxOutputBytes = 4 << 20

// Broken tenants (a syntax error, infinite recursion, an output bomb, a 1 GiB artifact, a
// path-traversal tarball, an ImagePolicy naming a foreign repository) next to healthy ones:
// each broken KCLRun ends Ready=False with a specific reason and message, within the
// limits, and the healthy KCLRuns converge and follow a stream of changes meanwhile.
func TestBadInputNextToHealthyTenants(t *testing.T) {
	f := startFleet(t, fleetOptions{compilerArgs: []string{fmt.Sprintf("--max-output-bytes=%d", maxOutputBytes)}})
	ctx := context.Background()
	files := func(main string) func(string) map[string]string {
		return func(string) map[string]string { return map[string]string{"main.k": main} }
	}
	broken := []*brokenTenant{
		{
			name:    "syntax error",
			tenant:  &tenant{program: files("items = [\n    {apiVersion = \"v1\"\n")},
			reason:  v1alpha1.CompileFailedReason,
			message: regexp.MustCompile(`main\.k:\d+`),
		},
		{
			name:    "infinite recursion",
			tenant:  &tenant{program: files("f = lambda x {\n    f(x)\n}\nitems = [f(1)]\n")},
			reason:  v1alpha1.CompileFailedReason,
			message: regexp.MustCompile(`main\.k:2.*recursion`),
		},
		{
			name: "output bomb",
			tenant: &tenant{program: files(`items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = "bomb-${i}"}
    data = {x = "x" * 100000}
} for i in range(100)]
`)},
			reason:  v1alpha1.CompileFailedReason,
			message: regexp.MustCompile(`output is larger than 4194304 bytes`),
		},
		{
			name:    "1 GiB artifact",
			tenant:  &tenant{},
			reason:  v1alpha1.ArtifactFailedReason,
			message: regexp.MustCompile(`artifact too large: .*max download size`),
		},
		{
			name:    "path-traversal tarball",
			tenant:  &tenant{},
			reason:  v1alpha1.ArtifactFailedReason,
			message: regexp.MustCompile(`artifact has an entry outside its root`),
		},
		{
			name:    "foreign-repository policy",
			tenant:  &tenant{},
			reason:  v1alpha1.ImagePolicyHeldReason,
			message: regexp.MustCompile(`RepositoryMismatch: .*docker\.io/evil/web .*ghcr\.io/org/web`),
			after: func(ctx context.Context, tn *tenant) error {
				return imagepolicy.SetLatest(ctx, suite.Env.Client, tn.policy, imagev1.ImageRef{Name: "docker.io/evil/web", Tag: "6.6.6"})
			},
		},
	}
	broken[3].tenant.artifact = func(path, revision string) (*meta.Artifact, error) {
		return f.artifacts.PublishZeros(path, 1<<30, revision)
	}
	broken[4].tenant.artifact = func(path, revision string) (*meta.Artifact, error) {
		data, err := artifactserver.TarGz(map[string]string{
			"main.k":            "items = []\n",
			"../../../escape.k": "escaped = True\n",
		})
		if err != nil {
			return nil, err
		}
		return f.artifacts.PublishBytes(path, data, revision)
	}
	for _, b := range broken {
		f.newTenant(ctx, b.tenant)
		if b.after != nil {
			if err := b.after(ctx, b.tenant); err != nil {
				t.Fatal(err)
			}
		}
	}

	start := time.Now()
	healthy := f.addTenants(3)
	latencies := make([]time.Duration, len(healthy))
	waitFor(t, "convergence of the healthy tenants", func() bool {
		done := true
		for i, tn := range healthy {
			if latencies[i] != 0 {
				continue
			}
			if tenantConverged(ctx, tn, f.opts.objects) == nil {
				latencies[i] = time.Since(start)
			} else {
				done = false
			}
		}
		return done
	})
	t.Logf("healthy tenants Ready after %v next to %d broken ones", rounded(latencies), len(broken))

	s := f.startStream(100 * time.Millisecond)
	s.waitChanges(t, 12)
	s.stop()
	t.Logf("healthy tenants converged %s after a stream of %d changes", f.waitConverged().Round(time.Millisecond), s.changes.Load())

	for _, b := range broken {
		var last string
		waitFor(t, b.name+" reported as "+b.reason, func() bool {
			run := &v1alpha1.KCLRun{}
			if err := suite.Env.Client.Get(ctx, client.ObjectKey{Namespace: b.tenant.ns, Name: "app"}, run); err != nil {
				return false
			}
			ready := conditions.Get(run, meta.ReadyCondition)
			if ready == nil {
				return false
			}
			last = ready.Reason + ": " + ready.Message
			return ready.Status == "False" && ready.Reason == b.reason && b.message.MatchString(ready.Message)
		})
		t.Logf("%s: Ready=False %s", b.name, truncate(last, 300))
		waitFor(t, "warning event for the "+b.name, func() bool {
			for _, ev := range f.events.Events() {
				if ev.InvolvedObject.Namespace == b.tenant.ns && ev.Severity == eventv1.EventSeverityError && ev.Reason == b.reason {
					return true
				}
			}
			return false
		})
	}
	f.checkJournal()
}

func rounded(ds []time.Duration) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond).String()
	}
	return out
}

func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
