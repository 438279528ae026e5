package driver

import (
	"context"
	"fmt"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
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

// burstTenant owns the burst: one namespace holding Burst KCLRuns that share
// one GitRepository, as a mono-repo's many apps do; a new revision of it
// changes all of them at once. Its index is past any size's tenants.
var burstTenant = tenant.Tenant{Index: 9999, Side: tenant.KCL}

// burstQuietDelay is how long after the burst's source moved the quiet
// tenant changes, so that the burst's requests are queued ahead of its one.
const burstQuietDelay = time.Second

// burstTarget is where the i-th burst KCLRun's objects go (spec.targetNamespace):
// each its own namespace, so the shared program's objects do not collide.
func burstTarget(i int) string { return fmt.Sprintf("lt-burst-%04d", i+1) }

// burst measures fair turns: each round gives the burst namespace's source a
// new revision (Burst KCLRuns to apply) and, burstQuietDelay later, moves one
// quiet tenant's ImagePolicy; the sample is the quiet change → its Deployment
// carrying the new image. The round ends when the whole burst is applied.
func (d *driver) burst(ctx context.Context, c client.Client, ts []tenant.Tenant, images, revisions *changeWaiter) (*report.Burst, error) {
	n := d.opts.Burst
	ns := burstTenant.Namespace()
	d.logf("burst: preparing %s with %d KCLRuns on one source", ns, n)
	if err := d.prepareTenant(ctx, c, burstTenant); err != nil {
		return nil, err
	}
	if err := parallel(ctx, n, func(ctx context.Context, i int) error {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: burstTarget(i)}}); err != nil {
			return fmt.Errorf("creating namespace %s: %w", burstTarget(i), err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	first, err := d.awaitBurst(ctx, revisions, n, "r1", func() error {
		return parallel(ctx, n, func(ctx context.Context, i int) error {
			run := &v1alpha1.KCLRun{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("burst-%04d", i+1)},
				Spec: v1alpha1.KCLRunSpec{
					SourceRef:       v1alpha1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: tenant.Name},
					Interval:        metav1.Duration{Duration: runnerInterval},
					Prune:           true,
					TargetNamespace: burstTarget(i),
				},
			}
			if err := c.Create(ctx, run); err != nil {
				return fmt.Errorf("creating burst KCLRun %d: %w", i+1, err)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	d.logf("burst: %d KCLRuns applied in %.1fs", n, first)

	out := &report.Burst{Size: n}
	var samples []float64
	missed := 0
	quiet := spread(ts, d.opts.BurstRounds, 0.25)
	for round := range d.opts.BurstRounds {
		revision := fmt.Sprintf("b%d", round+1)
		a, err := d.publish(ctx, burstTenant, revision)
		if err != nil {
			return out, err
		}
		src := &sourcev1.GitRepository{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: tenant.Name}, src); err != nil {
			return out, fmt.Errorf("reading GitRepository of %s: %w", ns, err)
		}
		q := quiet[round%len(quiet)]
		quietDone := make(chan struct{})
		var lat float64
		var ok bool
		var quietErr error
		burstSeconds, err := d.awaitBurst(ctx, revisions, n, revision, func() error {
			if err := artifactserver.SetArtifact(ctx, c, src, a); err != nil {
				return err
			}
			go func() {
				defer close(quietDone)
				select {
				case <-time.After(burstQuietDelay):
				case <-ctx.Done():
					quietErr = ctx.Err()
					return
				}
				lat, ok, quietErr = d.quietChange(ctx, c, q, fmt.Sprintf("1.2.%d", round), images)
			}()
			return nil
		})
		<-quietDone
		if err != nil {
			return out, err
		}
		if quietErr != nil {
			return out, quietErr
		}
		if ok {
			samples = append(samples, lat)
		} else {
			missed++
		}
		out.BurstSeconds = append(out.BurstSeconds, burstSeconds)
		d.logf("burst round %d: %d KCLRuns applied in %.1fs; quiet %s applied after %.0fms", round+1, n, burstSeconds, q.Namespace(), lat*1000)
	}
	out.Quiet = report.NewLatency(samples, missed)
	return out, nil
}

// quietChange moves a quiet tenant's ImagePolicy to tag and waits for its Deployment.
func (d *driver) quietChange(ctx context.Context, c client.Client, t tenant.Tenant, tag string, images *changeWaiter) (float64, bool, error) {
	p := &imagev1.ImagePolicy{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: t.Namespace(), Name: tenant.Name}, p); err != nil {
		return 0, false, fmt.Errorf("reading ImagePolicy of %s: %w", t.Namespace(), err)
	}
	seen := images.expect(t.Namespace(), t.Image(tag))
	start := time.Now()
	if err := imagepolicy.SetLatest(ctx, c, p, imagev1.ImageRef{Name: t.ImageRepository(), Tag: tag}); err != nil {
		return 0, false, err
	}
	lat, ok, err := d.await(ctx, seen, start)
	if !ok {
		images.cancel(t.Namespace())
	}
	return lat, ok, err
}

// awaitBurst runs change and waits until every burst target's ConfigMap
// carries revision (up to SyncTimeout); it returns the seconds that took.
func (d *driver) awaitBurst(ctx context.Context, revisions *changeWaiter, n int, revision string, change func() error) (float64, error) {
	seen := make([]<-chan time.Time, n)
	for i := range n {
		seen[i] = revisions.expect(burstTarget(i), revision)
	}
	start := time.Now()
	if err := change(); err != nil {
		return 0, err
	}
	deadline := time.After(d.syncTimeoutFor(n))
	last := start
	for i, ch := range seen {
		select {
		case at := <-ch:
			if at.After(last) {
				last = at
			}
		case <-deadline:
			for j := i; j < n; j++ {
				revisions.cancel(burstTarget(j))
			}
			return 0, fmt.Errorf("burst: %d of %d KCLRuns did not apply %s within %s", n-i, n, revision, d.syncTimeoutFor(n))
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	return last.Sub(start).Seconds(), nil
}
