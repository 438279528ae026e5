package driver

import (
	"context"
	"fmt"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/internal/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
)

// Fault scenarios the driver runs (loadtest/fault holds the injectors).
const (
	// FaultArtifactServer refuses artifact downloads while sources get new revisions.
	FaultArtifactServer = "artifact-server-outage"
	// FaultNATS restarts the NATS server (split mode: the driver runs it) while sources get
	// new revisions.
	FaultNATS = "nats-restart"
	// FaultAPIServer restarts kube-apiserver (a driver-started cluster); the new revisions
	// are set once it is back.
	FaultAPIServer = "apiserver-restart"
)

// faults runs the configured fault scenarios one after the other. Each gives FaultChanges
// sources a new revision and measures, from the end of the fault, until every one of their
// ConfigMaps carries it (fault.Run's recovery time).
func (d *driver) faults(ctx context.Context, cl *cluster, ctrl *controller, ts []tenant.Tenant, revisions *changeWaiter) ([]report.FaultCheck, error) {
	var out []report.FaultCheck
	for round, name := range d.opts.Faults {
		revision := fmt.Sprintf("f%d", round+1)
		changed := spread(ts, d.opts.FaultChanges, 0.25+0.1*float64(round))
		var pending []<-chan time.Time
		issue := func(ctx context.Context) error {
			for _, t := range changed {
				pending = append(pending, revisions.expect(t.Namespace(), revision))
				if err := d.newRevision(ctx, cl.client, t, revision); err != nil {
					return err
				}
			}
			return nil
		}
		var f fault.Fault
		issueAfter := false
		switch name {
		case FaultArtifactServer:
			f = fault.ArtifactServerOutage(d.artifacts)
		case FaultNATS:
			if ctrl.nats == nil {
				out = append(out, report.FaultCheck{Name: name, Skipped: true, Detail: "skipped: NATS runs in the driver only in split mode"})
				continue
			}
			f = fault.NATSRestart(ctrl.nats)
		case FaultAPIServer:
			if cl.env == nil {
				out = append(out, report.FaultCheck{Name: name, Skipped: true, Detail: "skipped: the driver did not start this apiserver"})
				continue
			}
			f, issueAfter = fault.APIServerRestart(cl.env), true
		default:
			return out, fmt.Errorf("unknown fault %q (%s, %s or %s)", name, FaultArtifactServer, FaultNATS, FaultAPIServer)
		}
		d.logf("fault %s: %d sources get revision %s", name, len(changed), revision)
		// Changes land while the fault lasts, except when the apiserver itself is down.
		injected := &changesDuring{Fault: f, issue: issue, issueAfter: issueAfter}
		issued := !issueAfter
		converged := func(ctx context.Context) (bool, error) {
			if !issued {
				if err := issue(ctx); err != nil {
					pending = nil
					return false, err // apiserver still settling: the next poll tries again
				}
				issued = true
			}
			for i, ch := range pending {
				select {
				case <-ch:
					pending[i] = closedTimeChan
				default:
					return false, nil
				}
			}
			return true, nil
		}
		runCtx, cancel := context.WithTimeout(ctx, d.opts.ChangeTimeout+d.opts.FaultOutage)
		rep, err := fault.Run(runCtx, injected, fault.Options{Outage: d.opts.FaultOutage, Converged: converged, Poll: 50 * time.Millisecond})
		cancel()
		check := report.FaultCheck{Name: name, Converged: err == nil, Seconds: rep.Recovery.Seconds(), Detail: rep.String()}
		if err != nil {
			check.Detail = err.Error()
		}
		d.logf("fault %s", check.Detail)
		out = append(out, check)
	}
	return out, nil
}

// changesDuring issues the scenario's changes right after the fault is injected, unless
// they can only be issued after it (issueAfter).
type changesDuring struct {
	fault.Fault
	issue      func(context.Context) error
	issueAfter bool
}

func (c *changesDuring) Inject(ctx context.Context) error {
	if err := c.Fault.Inject(ctx); err != nil {
		return err
	}
	if c.issueAfter {
		return nil
	}
	return c.issue(ctx)
}

// closedTimeChan marks a change already seen.
var closedTimeChan = func() <-chan time.Time {
	ch := make(chan time.Time)
	close(ch)
	return ch
}()

// newRevision publishes a tenant's program at revision and points its GitRepository at it.
func (d *driver) newRevision(ctx context.Context, c client.Client, t tenant.Tenant, revision string) error {
	a, err := d.publish(ctx, t, revision)
	if err != nil {
		return err
	}
	src := &sourcev1.GitRepository{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: t.Namespace(), Name: tenant.Name}, src); err != nil {
		return fmt.Errorf("reading GitRepository of %s: %w", t.Namespace(), err)
	}
	return artifactserver.SetArtifact(ctx, c, src, a)
}
