// Package fault injects failures into a running flux-kcl-controller and measures how long
// the system takes to recover from each. The load driver runs them as scenarios and
// test/faults proves with them that nothing is lost.
//
//	f := fault.NATSRestart(natsServer)          // *natsserver.Server
//	f = fault.APIServerRestart(kubeEnv)         // *kube.Env
//	f = fault.ArtifactServerOutage(artifacts)   // *artifactserver.Server
//	f = fault.EventsReceiverOutage(receiver)    // *fault.EventReceiver
//	f = fault.Kill(process, journalPath)        // *fault.Process: SIGKILL, then start again
//	nodes := fault.NewClusterNodes(cluster, stream) // *natsserver.Cluster
//	f = nodes.KillLeader()                      // the stream's leader node, left down
//	f = nodes.KillFollowerThenRestart()         // then a follower; both restarted on recovery
//	report, err := fault.Run(ctx, f, fault.Options{
//		Outage:    time.Minute,                            // how long the fault lasts
//		Converged: func(ctx context.Context) (bool, error) { ... }, // every KCLRun at the latest state
//	})
//	log.Print(report) // "nats-restart: down 2s, recovered 1.3s after the fault ended"
//
// Run injects, waits Outage, recovers, then polls Converged: Report.Recovery is the time
// from the end of the fault until Converged first returned true. Timing a fault to a moment
// (a compile in flight, an apply half done) is the caller's: wait for it, then call Run.
//
// Overlap of writes is observed through a Journal: the journaled applier
// (cmd/journaled-applier, bin/applier plus --journal) appends one line when a reconcile
// enters and leaves a KCLRun's lease, Kill appends one when it killed a process, and
// ReadJournal finds any KCLRun that two reconciles held at once.
package fault

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Fault is one failure that can be injected and then removed.
type Fault interface {
	Name() string
	// Inject starts the failure (stops a server, kills a process).
	Inject(ctx context.Context) error
	// Recover ends it (restarts what was stopped).
	Recover(ctx context.Context) error
}

// Outage is a Fault made of a down and an up function.
type Outage struct {
	Label string
	Down  func(ctx context.Context) error
	Up    func(ctx context.Context) error
}

// Name of the fault, as reports print it.
func (o *Outage) Name() string { return o.Label }

// Inject calls Down.
func (o *Outage) Inject(ctx context.Context) error {
	if err := o.Down(ctx); err != nil {
		return fmt.Errorf("%s: injecting: %w", o.Label, err)
	}
	return nil
}

// Recover calls Up.
func (o *Outage) Recover(ctx context.Context) error {
	if err := o.Up(ctx); err != nil {
		return fmt.Errorf("%s: recovering: %w", o.Label, err)
	}
	return nil
}

// Restartable is a server that can crash and come back with its state
// (*natsserver.Server).
type Restartable interface {
	Shutdown()
	Restart() error
}

// NATSRestart stops the NATS server (JetStream store kept) and starts it again on the same
// port.
func NATSRestart(s Restartable) *Outage {
	return &Outage{
		Label: "nats-restart",
		Down:  func(context.Context) error { s.Shutdown(); return nil },
		Up:    func(context.Context) error { return s.Restart() },
	}
}

// APIServer is a kube-apiserver that can be stopped while etcd keeps running (*kube.Env).
type APIServer interface {
	StopAPIServer() error
	StartAPIServer(ctx context.Context) error
}

// APIServerRestart stops kube-apiserver and starts it again on the same address and etcd.
func APIServerRestart(a APIServer) *Outage {
	return &Outage{
		Label: "apiserver-restart",
		Down:  func(context.Context) error { return a.StopAPIServer() },
		Up:    a.StartAPIServer,
	}
}

// Switchable is a server that can refuse connections and serve again on the same address
// (*artifactserver.Server, *EventReceiver).
type Switchable interface {
	Down()
	Up() error
}

// ArtifactServerOutage makes the artifact server (source-controller's storage) refuse
// connections until recovered.
func ArtifactServerOutage(s Switchable) *Outage { return switchOutage("artifact-server-outage", s) }

// EventsReceiverOutage makes the events receiver (notification-controller, --events-addr)
// refuse connections until recovered.
func EventsReceiverOutage(s Switchable) *Outage { return switchOutage("events-receiver-outage", s) }

func switchOutage(label string, s Switchable) *Outage {
	return &Outage{
		Label: label,
		Down:  func(context.Context) error { s.Down(); return nil },
		Up:    func(context.Context) error { return s.Up() },
	}
}

// Kill SIGKILLs the process, recording it in the journal when journal is not empty, and
// starts it again with the same arguments on recovery.
func Kill(p *Process, journal string) *Outage {
	return &Outage{
		Label: "kill-" + p.Name,
		Down: func(context.Context) error {
			pid, err := p.Kill()
			if err != nil {
				return err
			}
			if journal != "" {
				return RecordKill(journal, pid)
			}
			return nil
		},
		Up: func(ctx context.Context) error { return p.Start(ctx) },
	}
}

// Options of Run.
type Options struct {
	// Outage is how long the fault lasts before Recover; 0 recovers at once.
	Outage time.Duration
	// Converged reports whether the system reached the state expected after the fault
	// (every KCLRun at its latest revision and image); nil skips the measurement.
	Converged func(ctx context.Context) (bool, error)
	// Poll is the interval between Converged calls; default 100ms.
	Poll time.Duration
}

// Report is what one fault did and how long the system took to recover.
type Report struct {
	Fault string
	// Injected, Recovered and Converged are when the fault started, ended, and when the
	// system was first seen converged afterwards.
	Injected, Recovered, Converged time.Time
	// Down is Recovered - Injected.
	Down time.Duration
	// Recovery is Converged - Recovered: how long the system lagged behind the fault's end.
	Recovery time.Duration
}

func (r Report) String() string {
	return fmt.Sprintf("%s: down %s, converged %s after the fault ended (%s after it started)",
		r.Fault, r.Down.Round(time.Millisecond), r.Recovery.Round(time.Millisecond),
		r.Converged.Sub(r.Injected).Round(time.Millisecond))
}

// Run injects f, waits o.Outage, recovers and waits until o.Converged, or ctx ends.
func Run(ctx context.Context, f Fault, o Options) (Report, error) {
	rep := Report{Fault: f.Name(), Injected: time.Now()}
	if err := f.Inject(ctx); err != nil {
		// A half-injected fault (a server that stopped with an error) must not outlive Run.
		return rep, errors.Join(err, f.Recover(context.WithoutCancel(ctx)))
	}
	if o.Outage > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(o.Outage):
		}
	}
	// Recover even when ctx ended: a fault must never outlive its scenario.
	if err := f.Recover(context.WithoutCancel(ctx)); err != nil {
		return rep, err
	}
	rep.Recovered = time.Now()
	rep.Down = rep.Recovered.Sub(rep.Injected)
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if o.Converged == nil {
		return rep, nil
	}
	poll := o.Poll
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	var last error
	for {
		ok, err := o.Converged(ctx)
		if ok {
			rep.Converged = time.Now()
			rep.Recovery = rep.Converged.Sub(rep.Recovered)
			return rep, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return rep, fmt.Errorf("%s: not converged after recovery: %w", f.Name(), errors.Join(ctx.Err(), last))
		case <-time.After(poll):
		}
	}
}

// Cluster is a JetStream cluster whose nodes can crash and come back on their ports and
// stores (*natsserver.Cluster); nodes are addressed by index.
type Cluster interface {
	StreamLeader(stream string) int
	StreamFollower(stream string) int
	NodeName(i int) string
	Shutdown(i int)
	Restart(i int) error
}

// ClusterNodes kills nodes of a JetStream cluster by the role they play for one stream and
// restarts them, in the order issue 18 asks for: the stream leader, then a follower, then
// both back.
//
//	nodes := fault.NewClusterNodes(cluster, "FKC_RECONCILE_V1")
//	fault.Run(ctx, nodes.KillLeader(), ...)             // stays down: the other two carry on
//	fault.Run(ctx, nodes.KillFollowerThenRestart(), ...) // no quorum while down; both restarted
type ClusterNodes struct {
	c      Cluster
	stream string
	down   []int
}

// NewClusterNodes kills nodes of c by their role for stream.
func NewClusterNodes(c Cluster, stream string) *ClusterNodes {
	return &ClusterNodes{c: c, stream: stream}
}

// ErrNoSuchNode reports that no running node plays the role a fault wanted to kill.
var ErrNoSuchNode = errors.New("no node in that role")

// Down are the nodes this ClusterNodes shut down and has not restarted, by name.
func (n *ClusterNodes) Down() []string {
	var names []string
	for _, i := range n.down {
		names = append(names, n.c.NodeName(i))
	}
	return names
}

func (n *ClusterNodes) kill(role string, find func(string) int) error {
	i := find(n.stream)
	if i < 0 {
		return fmt.Errorf("%w: %s of stream %s", ErrNoSuchNode, role, n.stream)
	}
	n.c.Shutdown(i)
	n.down = append(n.down, i)
	return nil
}

// KillLeader shuts down the node leading the stream; recovering leaves it down, so what
// is measured is the cluster carrying on with the other nodes (a new leader elected).
func (n *ClusterNodes) KillLeader() *Outage {
	return &Outage{
		Label: "kill-stream-leader",
		Down:  func(context.Context) error { return n.kill("leader", n.c.StreamLeader) },
		Up:    func(context.Context) error { return nil },
	}
}

// KillFollowerThenRestart shuts down a node following the stream (with the leader already
// down, the cluster then has no quorum: nothing is stored or acknowledged) and, on recovery,
// restarts every node it and KillLeader shut down.
func (n *ClusterNodes) KillFollowerThenRestart() *Outage {
	return &Outage{
		Label: "kill-stream-follower-then-restart-both",
		Down:  func(context.Context) error { return n.kill("follower", n.c.StreamFollower) },
		Up: func(context.Context) error {
			var errs []error
			for _, i := range n.down {
				if err := n.c.Restart(i); err != nil {
					errs = append(errs, fmt.Errorf("restarting %s: %w", n.c.NodeName(i), err))
				}
			}
			n.down = nil
			return errors.Join(errs...)
		},
	}
}
