package driver

import (
	"context"
	"fmt"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
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
	// FaultJetStreamCluster runs split mode on a three-node JetStream cluster (stream and
	// buckets with three replicas, two appliers, two compilers) and kills the stream's leader
	// node (left down), then a follower (no quorum), then restarts both: two rounds of
	// changes, each measured.
	FaultJetStreamCluster = "jetstream-cluster"
)

// faultStep is one measured fault: a scenario may take several in a row.
type faultStep struct {
	name       string
	fault      fault.Fault
	issueAfter bool
	// before runs right before the step (waits the cluster needs between its faults).
	before func(ctx context.Context) error
	// fromInjection measures from the injection (no outage to wait out): for a fault whose
	// recovery is the next step's, such as a node left down.
	fromInjection bool
}

// faults runs the configured fault scenarios one after the other. Each gives FaultChanges
// sources a new revision and measures, from the end of the fault, until every one of their
// ConfigMaps carries it (fault.Run's recovery time).
func (d *driver) faults(ctx context.Context, cl *cluster, ctrl *controller, ts []tenant.Tenant, revisions *changeWaiter) ([]report.FaultCheck, error) {
	var out []report.FaultCheck
	var steps []faultStep
	for _, name := range d.opts.Faults {
		switch name {
		case FaultArtifactServer:
			steps = append(steps, faultStep{name: name, fault: fault.ArtifactServerOutage(d.artifacts)})
		case FaultNATS:
			if ctrl.nats == nil {
				out = append(out, report.FaultCheck{Name: name, Skipped: true, Detail: "skipped: NATS runs in the driver only in split mode (and is a cluster with jetstream-cluster)"})
				continue
			}
			steps = append(steps, faultStep{name: name, fault: fault.NATSRestart(ctrl.nats)})
		case FaultAPIServer:
			if cl.env == nil {
				out = append(out, report.FaultCheck{Name: name, Skipped: true, Detail: "skipped: the driver did not start this apiserver"})
				continue
			}
			steps = append(steps, faultStep{name: name, fault: fault.APIServerRestart(cl.env), issueAfter: true})
		case FaultJetStreamCluster:
			if ctrl.natsCluster == nil {
				out = append(out, report.FaultCheck{Name: name, Skipped: true, Detail: "skipped: the driver runs the NATS cluster only in split mode"})
				continue
			}
			nodes := fault.NewClusterNodes(ctrl.natsCluster, shard.Name("").Stream())
			// Each kill starts from a cluster whose streams have leaders, not from an election.
			settled := func(ctx context.Context) error {
				waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				return ctrl.natsCluster.WaitStreamLeaders(waitCtx, shard.Name("").Stream())
			}
			leader, follower := nodes.KillLeader(), nodes.KillFollowerThenRestart()
			steps = append(steps,
				faultStep{name: name + "/" + leader.Name(), fault: leader, before: settled, fromInjection: true},
				faultStep{name: name + "/" + follower.Name(), fault: follower, before: settled})
		default:
			return out, fmt.Errorf("unknown fault %q (%s, %s, %s or %s)", name, FaultArtifactServer, FaultNATS, FaultAPIServer, FaultJetStreamCluster)
		}
	}
	for round, step := range steps {
		name, f, issueAfter := step.name, step.fault, step.issueAfter
		if step.before != nil {
			if err := step.before(ctx); err != nil {
				out = append(out, report.FaultCheck{Name: name, Detail: fmt.Sprintf("not started: %v", err)})
				continue
			}
		}
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
		outage := d.opts.FaultOutage
		if step.fromInjection {
			outage = 0
		}
		runCtx, cancel := context.WithTimeout(ctx, d.opts.ChangeTimeout+outage)
		rep, err := fault.Run(runCtx, injected, fault.Options{Outage: outage, Converged: converged, Poll: 50 * time.Millisecond})
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
