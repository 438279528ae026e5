package watcher

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// tick is one scheduled periodic request. The deadline identifies it: a tick
// whose deadline is no longer the KCLRun's current one was superseded.
type tick struct {
	key      types.NamespacedName
	deadline int64 // unix nanoseconds
}

// schedule keeps one pending periodic request per KCLRun on a delaying queue.
type schedule struct {
	queue     workqueue.TypedDelayingInterface[tick]
	jitterPct int
	now       func() time.Time

	mu        sync.Mutex
	deadlines map[types.NamespacedName]int64
}

func newSchedule(jitterPct int) *schedule {
	return &schedule{
		queue:     workqueue.NewTypedDelayingQueue[tick](),
		jitterPct: jitterPct,
		now:       time.Now,
		deadlines: map[types.NamespacedName]int64{},
	}
}

// set replaces the KCLRun's pending periodic request by one due after period
// (jittered).
func (s *schedule) set(key types.NamespacedName, period time.Duration) {
	d := jittered(period, s.jitterPct, rand.Float64())
	deadline := s.now().Add(d).UnixNano()
	s.mu.Lock()
	s.deadlines[key] = deadline
	scheduledKCLRuns.Set(float64(len(s.deadlines)))
	s.mu.Unlock()
	s.queue.AddAfter(tick{key: key, deadline: deadline}, d)
}

// forget drops the KCLRun's pending periodic request.
func (s *schedule) forget(key types.NamespacedName) {
	s.mu.Lock()
	delete(s.deadlines, key)
	scheduledKCLRuns.Set(float64(len(s.deadlines)))
	s.mu.Unlock()
}

// current reports whether t is still the KCLRun's pending periodic request.
func (s *schedule) current(t tick) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deadlines[t.key] == t.deadline
}

// jittered spreads d by ±pct percent; r is uniform in [0, 1).
func jittered(d time.Duration, pct int, r float64) time.Duration {
	if pct <= 0 || d <= 0 {
		return d
	}
	spread := float64(d) * float64(pct) / 100
	return d + time.Duration(spread*(2*r-1))
}

// periodFor is how long until the KCLRun's next periodic request, and why:
// spec.retryInterval while its Ready condition is False, spec.interval otherwise.
func periodFor(run *kclv1.KCLRun, minInterval time.Duration) (time.Duration, reconcilerequest.Reason) {
	period, reason := run.GetRequeueAfter(), reconcilerequest.ReasonIntervalElapsed
	if ready := apimeta.FindStatusCondition(run.Status.Conditions, meta.ReadyCondition); ready != nil && ready.Status == metav1.ConditionFalse {
		period, reason = run.GetRetryInterval(), reconcilerequest.ReasonRetryIntervalElapsed
	}
	return max(period, minInterval), reason
}

// attemptMark summarises what the applier writes when it finishes an attempt.
// When it changes, an attempt ended and the periodic clock restarts from now.
func attemptMark(run *kclv1.KCLRun) string {
	mark := fmt.Sprintf("%d|%s|%s|%s", run.Status.ObservedGeneration, run.Status.LastAttemptedRevision,
		run.Status.LastAttemptedRevisionDigest, run.Status.LastHandledReconcileAt)
	if ready := apimeta.FindStatusCondition(run.Status.Conditions, meta.ReadyCondition); ready != nil {
		mark += fmt.Sprintf("|%s|%s|%s|%d|%s", ready.Status, ready.Reason, ready.Message,
			ready.ObservedGeneration, ready.LastTransitionTime.UTC().Format(time.RFC3339))
	}
	return mark
}
