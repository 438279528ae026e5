package watcher

import (
	"context"
	"fmt"
	"sync"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/events"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/rollout"
)

// rolloutRequeue is the delay before a rollout whose status write failed
// (a conflict: another replica or shard decided first, or the cache was
// behind) is stepped again from what the cache then holds.
const rolloutRequeue = 200 * time.Millisecond

// rollouts runs the ImageRollout state machine (internal/rollout) on the
// elected watcher. A decision takes effect only once written into the
// rollout's status with its resourceVersion (an optimistic lock): a replica
// or shard that decided from an older status gets a conflict and decides
// again, so no stage is admitted twice. Reconcile requests and events follow
// the write, never precede it.
type rollouts struct {
	s      *Service
	queue  workqueue.TypedRateLimitingInterface[types.NamespacedName]
	events events.Recorder

	// wakeups are the pending timers of bakes and freeze windows, one per
	// rollout, on the injected clock (retries use the queue's real one).
	mu      sync.Mutex
	wakeups map[types.NamespacedName]clock.Timer
}

// newRollouts is the rollout runner, nil when the ImageRollout or the
// ImagePolicy CRD is not installed.
func (s *Service) newRollouts() *rollouts {
	if !s.kindServed(kclv1.GroupVersion.WithKind(kclv1.ImageRolloutKind)) ||
		!s.kindServed(imagev1.GroupVersion.WithKind(imagev1.ImagePolicyKind)) {
		return nil
	}
	return &rollouts{
		s: s,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "imagerollouts"}),
		events:  s.events,
		wakeups: map[types.NamespacedName]clock.Timer{},
	}
}

// run steps rollouts until ctx ends: one at a time, so this replica never
// decides twice from one status.
func (r *rollouts) run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		r.queue.ShutDown()
	}()
	for r.next(ctx) {
	}
}

func (r *rollouts) rolloutHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if ro, ok := unwrap[*kclv1.ImageRollout](obj); ok {
				r.queue.Add(client.ObjectKeyFromObject(ro))
			}
		},
		UpdateFunc: func(_, obj any) {
			if ro, ok := unwrap[*kclv1.ImageRollout](obj); ok {
				r.queue.Add(client.ObjectKeyFromObject(ro))
			}
		},
		DeleteFunc: func(obj any) {
			if ro, ok := unwrap[*kclv1.ImageRollout](obj); ok {
				forgetRolloutMetrics(ro)
				// Another rollout of the policy may now govern it.
				r.policyChanged(context.Background(), ro.PolicyKey())
			}
		},
	}
}

// policyChanged steps the rollouts of a policy ("namespace/name").
func (r *rollouts) policyChanged(ctx context.Context, policy string) {
	if r == nil {
		return
	}
	var list kclv1.ImageRolloutList
	if err := r.s.mgr.GetCache().List(ctx, &list); err != nil {
		r.s.log.Error(err, "listing ImageRollouts", "imagePolicy", policy)
		return
	}
	for i := range list.Items {
		if list.Items[i].PolicyKey() == policy {
			r.queue.Add(client.ObjectKeyFromObject(&list.Items[i]))
		}
	}
}

// governs reports whether a started ImageRollout governs the policy.
func (r *rollouts) governs(ctx context.Context, policy string) bool {
	if r == nil {
		return false
	}
	var list kclv1.ImageRolloutList
	if err := r.s.mgr.GetCache().List(ctx, &list); err != nil {
		return false
	}
	ro := rollout.Governing(list.Items, policy)
	return ro != nil && ro.Status.LastGood != nil
}

// kclRunChanged steps the rollouts of the KCLRun's policies when what a
// rollout reads of it changed.
func (r *rollouts) kclRunChanged(ctx context.Context, old, run *kclv1.KCLRun) {
	if r == nil {
		return
	}
	if old != nil && old.Generation == run.Generation && old.Status.ObservedGeneration == run.Status.ObservedGeneration &&
		equality.Semantic.DeepEqual(old.Labels, run.Labels) &&
		equality.Semantic.DeepEqual(old.Status.ImagePolicies, run.Status.ImagePolicies) &&
		equality.Semantic.DeepEqual(old.Status.ImageRollouts, run.Status.ImageRollouts) &&
		readyOf(old) == readyOf(run) {
		return
	}
	policies := map[string]bool{}
	for _, p := range run.Status.ImagePolicies {
		policies[p] = true
	}
	if old != nil {
		for _, p := range old.Status.ImagePolicies {
			policies[p] = true
		}
	}
	for p := range policies {
		r.policyChanged(ctx, p)
	}
}

func readyOf(run *kclv1.KCLRun) string {
	c := apimeta.FindStatusCondition(run.Status.Conditions, meta.ReadyCondition)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

func (r *rollouts) next(ctx context.Context) bool {
	key, shutdown := r.queue.Get()
	if shutdown {
		return false
	}
	defer r.queue.Done(key)
	after, err := r.step(ctx, key)
	switch {
	case apierrors.IsConflict(err):
		r.s.log.V(1).Info("ImageRollout changed meanwhile; stepping it again", "imageRollout", key.String())
		r.queue.AddAfter(key, rolloutRequeue)
	case err != nil:
		r.s.log.Error(err, "stepping ImageRollout", "imageRollout", key.String())
		r.queue.AddRateLimited(key)
	default:
		r.queue.Forget(key)
		r.wakeAfter(key, after)
	}
	return true
}

// wakeAfter steps the rollout again after d on the injected clock; d = 0
// cancels the pending wake-up.
func (r *rollouts) wakeAfter(key types.NamespacedName, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.wakeups[key]; ok {
		t.Stop()
		delete(r.wakeups, key)
	}
	if d > 0 {
		r.wakeups[key] = r.s.clock.AfterFunc(d, func() { r.queue.Add(key) })
	}
}

// step reads what the rollout depends on, runs one Step, writes the status
// and then acts on it.
func (r *rollouts) step(ctx context.Context, key types.NamespacedName) (time.Duration, error) {
	s := r.s
	ro := &kclv1.ImageRollout{}
	if err := s.mgr.GetCache().Get(ctx, key, ro); err != nil {
		if apierrors.IsNotFound(err) {
			return 0, nil
		}
		return 0, fmt.Errorf("reading ImageRollout: %w", err)
	}
	obs, runs, err := r.observe(ctx, ro)
	if err != nil {
		return 0, err
	}
	next := ro.DeepCopy()
	res := rollout.Step(next, obs, s.clock.Now())
	if !equality.Semantic.DeepEqual(ro.Status, next.Status) {
		// Update carries next's resourceVersion: a status decided from an
		// older one is refused with a conflict, and nothing below happens.
		if err := s.mgr.GetClient().Status().Update(ctx, next); err != nil {
			return 0, fmt.Errorf("writing ImageRollout status: %w", err)
		}
	}
	target := next.Status.Target.String()
	for _, e := range res.Events {
		r.record(next, e, target)
	}
	if obs.Conflict == "" {
		r.reconcileStale(ctx, next, runs)
	}
	observeRollout(next, res)
	return res.RequeueAfter, nil
}

// stagedRun is a member KCLRun with its stage and the image its last
// attempt got from the rollout.
type stagedRun struct {
	run                    *kclv1.KCLRun
	stage, image, heldBack string
}

// observe gathers the policy's election, a conflicting rollout and the
// KCLRuns the rollout may govern: those that follow its policy and, with
// --no-cross-namespace-refs, are in its namespace (the others could not
// follow the policy at all).
func (r *rollouts) observe(ctx context.Context, ro *kclv1.ImageRollout) (rollout.Observed, []stagedRun, error) {
	s := r.s
	var obs rollout.Observed
	policy := &imagev1.ImagePolicy{}
	switch err := s.mgr.GetCache().Get(ctx, types.NamespacedName{Namespace: ro.Namespace, Name: ro.Spec.ImagePolicyRef.Name}, policy); {
	case apierrors.IsNotFound(err):
		obs.PolicyProblem = "not found"
	case err != nil:
		return obs, nil, fmt.Errorf("reading ImagePolicy: %w", err)
	case policy.Status.LatestRef == nil:
		obs.PolicyProblem = "has no latestRef yet"
	default:
		ref := policy.Status.LatestRef
		obs.Election = &kclv1.RolloutImage{Name: ref.Name, Tag: ref.Tag, Digest: ref.Digest}
	}

	var all kclv1.ImageRolloutList
	if err := s.mgr.GetCache().List(ctx, &all); err != nil {
		return obs, nil, fmt.Errorf("listing ImageRollouts: %w", err)
	}
	if older := rollout.Governing(all.Items, ro.PolicyKey()); older != nil && older.UID != ro.UID {
		obs.Conflict = older.Namespace + "/" + older.Name
	}

	runs, err := r.followers(ctx, ro.PolicyKey())
	if err != nil {
		return obs, nil, err
	}
	stages, _ := rollout.ParseStages(ro.Spec.Stages) // Step reports a bad spec
	nsLabels := map[string]map[string]string{}
	var staged []stagedRun
	for i := range runs {
		run := &runs[i]
		if s.cfg.NoCrossNamespaceRefs && run.Namespace != ro.Namespace {
			continue
		}
		m := rollout.Member{Namespace: run.Namespace, Name: run.Name, Labels: run.Labels, Ready: metav1.ConditionUnknown}
		if stages != nil && stages.NeedsNamespaceLabels() {
			labels, ok := nsLabels[run.Namespace]
			if !ok {
				ns := &corev1.Namespace{}
				if err := s.mgr.GetCache().Get(ctx, types.NamespacedName{Name: run.Namespace}, ns); err != nil && !apierrors.IsNotFound(err) {
					return obs, nil, fmt.Errorf("reading namespace %s: %w", run.Namespace, err)
				}
				labels = ns.Labels
				nsLabels[run.Namespace] = labels
			}
			m.NamespaceLabels = labels
		}
		heldBack := ""
		for _, given := range run.Status.ImageRollouts {
			if given.Policy == ro.PolicyKey() {
				m.Image, heldBack = given.Image, given.HeldBack
			}
		}
		if c := apimeta.FindStatusCondition(run.Status.Conditions, meta.ReadyCondition); c != nil && run.Status.ObservedGeneration == run.Generation {
			m.Ready, m.Message = c.Status, c.Message
		}
		obs.Members = append(obs.Members, m)
		st := stagedRun{run: run, image: m.Image, heldBack: heldBack}
		if stages != nil {
			st.stage = stages.StageOf(m.Labels, m.NamespaceLabels)
		}
		staged = append(staged, st)
	}
	return obs, staged, nil
}

// followers are the KCLRuns whose status.imagePolicies lists the policy. A
// shard's cache holds its own KCLRuns only, while a rollout's stages span
// every shard: a sharded watcher lists them from the apiserver.
func (r *rollouts) followers(ctx context.Context, policy string) ([]kclv1.KCLRun, error) {
	s := r.s
	var list kclv1.KCLRunList
	if s.cfg.WatchLabelSelector == "" {
		if err := s.mgr.GetCache().List(ctx, &list, client.MatchingFields{indexImagePolicies: policy}); err != nil {
			return nil, fmt.Errorf("listing KCLRuns of ImagePolicy %s: %w", policy, err)
		}
		return list.Items, nil
	}
	if err := s.mgr.GetAPIReader().List(ctx, &list); err != nil {
		return nil, fmt.Errorf("listing KCLRuns: %w", err)
	}
	var out []kclv1.KCLRun
	for _, run := range list.Items {
		for _, p := range run.Status.ImagePolicies {
			if p == policy {
				out = append(out, run)
				break
			}
		}
	}
	return out, nil
}

// reconcileStale publishes for the KCLRuns whose last attempt did not get
// the image the rollout now gives their stage: those of a stage just
// admitted, rolled back or completed, and any a lost request left behind (a
// watcher killed between its status write and its publishes). The message
// id names the image and the stage's admission, not the status: the many
// steps of one admission (each KCLRun's verdict is one) publish once per
// KCLRun, while a retried admission publishes again.
func (r *rollouts) reconcileStale(ctx context.Context, ro *kclv1.ImageRollout, runs []stagedRun) {
	if ro.Status.LastGood == nil {
		return // bad input before the rollout ever started: it gives nothing
	}
	trigger := reconcilerequest.TriggerOf(kclv1.ImageRolloutKind, ro.Namespace, ro.Name)
	target := ro.Status.Target.String()
	// KCLRuns whose image changes go first; those only shown a new target
	// held back (a status write, no apply) after them.
	var statusOnly []stagedRun
	publish := func(sr stagedRun, img string) {
		var admitted int64
		if st := ro.StageStatus(sr.stage); st != nil && st.AdmittedAt != nil {
			admitted = st.AdmittedAt.Unix()
		}
		r.s.enqueueFor(ctx, sr.run, reconcilerequest.ReasonImageRolloutChanged, trigger, nil,
			fmt.Sprintf("%s/imagerollout/%s/%s/%d/%s/%s", sr.run.UID, ro.UID, sr.stage, admitted, img, target))
	}
	for _, sr := range runs {
		// Another shard's watcher publishes for its own KCLRuns.
		if !r.s.selector.Matches(labels.Set(sr.run.Labels)) {
			continue
		}
		img := rollout.ImageFor(ro, sr.stage).String()
		heldBack := ""
		if img != target {
			heldBack = target
		}
		switch {
		case sr.image != img:
			publish(sr, img)
		case sr.heldBack != heldBack:
			statusOnly = append(statusOnly, sr)
		}
	}
	// Not while a stage is progressing: its KCLRuns' applies go first, and a
	// stage that bakes, waits for approval or a freeze shows heldBack then.
	if progressing(ro) {
		return
	}
	for _, sr := range statusOnly {
		publish(sr, sr.image)
	}
}

// progressing reports whether the current stage was admitted and is not Ready yet.
func progressing(ro *kclv1.ImageRollout) bool {
	for _, st := range ro.Status.Stages {
		if st.State != kclv1.StageSucceeded {
			return st.State == kclv1.StageProgressing
		}
	}
	return false
}

// record emits a Flux event on the rollout, the target in its metadata (as
// the revision, so notification-controller shows it). The webhook's HTTP
// retries run off the rollout worker.
func (r *rollouts) record(ro *kclv1.ImageRollout, e rollout.Event, target string) {
	rolloutTransitions.WithLabelValues(e.Reason).Inc()
	if r.events == nil {
		return
	}
	snapshot := ro.DeepCopy()
	snapshot.SetGroupVersionKind(kclv1.GroupVersion.WithKind(kclv1.ImageRolloutKind))
	eventType := corev1.EventTypeNormal
	if e.Warning {
		eventType = corev1.EventTypeWarning
	}
	metadata := map[string]string{
		kclv1.GroupVersion.Group + "/image":                      target,
		kclv1.GroupVersion.Group + "/" + eventv1.MetaRevisionKey: target,
	}
	go r.events.AnnotatedEventf(snapshot, nil, metadata, eventType, e.Reason, "", "%s", e.Message)
}
