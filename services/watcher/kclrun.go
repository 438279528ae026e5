package watcher

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// kclRunHandler publishes for a KCLRun's own changes, keeps its periodic
// schedule, and wakes its dependents when it becomes Ready.
func (s *Service) kclRunHandler(ctx context.Context) toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerDetailedFuncs{
		// Every KCLRun seen, including the initial list after a (re)start, gets
		// a request: what happened while no watcher ran is unknown. The initial
		// list's requests carry an id of this start: with the creation's id,
		// JetStream would drop them as duplicates within its window.
		AddFunc: func(obj any, isInInitialList bool) {
			run, ok := unwrap[*kclv1.KCLRun](obj)
			if !ok {
				return
			}
			msgID := generationID(run)
			if isInInitialList {
				msgID = fmt.Sprintf("%s/resync/%s", run.UID, s.startID)
			}
			s.enqueueFor(ctx, run, reconcilerequest.ReasonCreated, "", nil, msgID)
			s.reschedule(run)
			s.rollouts.kclRunChanged(ctx, nil, run)
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := unwrap[*kclv1.KCLRun](oldObj)
			run, ok2 := unwrap[*kclv1.KCLRun](newObj)
			if !ok1 || !ok2 {
				return
			}
			s.kclRunUpdated(ctx, old, run)
		},
		DeleteFunc: func(obj any) {
			if run, ok := unwrap[*kclv1.KCLRun](obj); ok {
				s.schedule.forget(client.ObjectKeyFromObject(run))
				s.rollouts.kclRunChanged(ctx, nil, run)
			}
		},
	}
}

func (s *Service) kclRunUpdated(ctx context.Context, old, run *kclv1.KCLRun) {
	switch {
	case old.DeletionTimestamp.IsZero() && !run.DeletionTimestamp.IsZero():
		s.enqueueFor(ctx, run, reconcilerequest.ReasonDeleting, "", nil, generationID(run)+"/deleting")
	case old.Generation != run.Generation:
		s.enqueueFor(ctx, run, reconcilerequest.ReasonGenerationChanged, "", nil, generationID(run))
	}
	if at := run.Annotations[meta.ReconcileRequestAnnotation]; at != "" && at != old.Annotations[meta.ReconcileRequestAnnotation] {
		s.enqueueFor(ctx, run, reconcilerequest.ReasonRequested, "", nil, fmt.Sprintf("%s/requested/%s", run.UID, at))
	}
	if old.Generation != run.Generation || attemptMark(old) != attemptMark(run) {
		s.reschedule(run)
	}
	if becameReady(old, run) {
		s.wakeDependents(ctx, run)
	}
	s.rollouts.kclRunChanged(ctx, old, run)
}

// becameReady: Ready turned True, or stayed True with a newly applied revision.
func becameReady(old, run *kclv1.KCLRun) bool {
	if !apimeta.IsStatusConditionTrue(run.Status.Conditions, meta.ReadyCondition) {
		return false
	}
	return !apimeta.IsStatusConditionTrue(old.Status.Conditions, meta.ReadyCondition) ||
		old.Status.LastAppliedRevision != run.Status.LastAppliedRevision
}

func (s *Service) wakeDependents(ctx context.Context, dep *kclv1.KCLRun) {
	var dependents kclv1.KCLRunList
	if err := s.mgr.GetCache().List(ctx, &dependents, client.MatchingFields{indexDependsOn: objectKey(dep.Namespace, dep.Name)}); err != nil {
		s.log.Error(err, "listing dependents", "kclrun", objectKey(dep.Namespace, dep.Name))
		return
	}
	trigger := reconcilerequest.TriggerOf(kclv1.KCLRunKind, dep.Namespace, dep.Name)
	for i := range dependents.Items {
		run := &dependents.Items[i]
		s.enqueueFor(ctx, run, reconcilerequest.ReasonDependencyReady, trigger, nil,
			fmt.Sprintf("%s/dependency/%s/%s", run.UID, dep.UID, dep.ResourceVersion))
	}
}

// reschedule restarts the KCLRun's periodic clock from now.
func (s *Service) reschedule(run *kclv1.KCLRun) {
	period, _ := periodFor(run, s.cfg.MinInterval)
	s.schedule.set(client.ObjectKeyFromObject(run), period)
}

// tickNext waits for the next due periodic request and publishes it.
func (s *Service) tickNext(ctx context.Context) bool {
	t, shutdown := s.schedule.queue.Get()
	if shutdown {
		return false
	}
	s.schedule.queue.Done(t)
	if s.schedule.current(t) {
		s.fire(ctx, t)
	}
	return true
}

func (s *Service) fire(ctx context.Context, t tick) {
	var run kclv1.KCLRun
	if err := s.mgr.GetCache().Get(ctx, t.key, &run); err != nil {
		// Gone (the delete event forgets it too) or not in this shard any more.
		s.schedule.forget(t.key)
		return
	}
	period, reason := periodFor(&run, s.cfg.MinInterval)
	if !run.Spec.Suspend {
		s.enqueueFor(ctx, &run, reason, "", nil, fmt.Sprintf("%s/interval/%d", run.UID, t.deadline))
	}
	s.schedule.set(t.key, period)
}

// enqueueFor queues a request for run. artifact is the source artifact when
// the trigger is the source; otherwise the cached source is read.
func (s *Service) enqueueFor(ctx context.Context, run *kclv1.KCLRun, reason reconcilerequest.Reason, trigger string, artifact *meta.Artifact, msgID string) {
	req := reconcilerequest.Request{
		Namespace:   run.Namespace,
		Name:        run.Name,
		UID:         string(run.UID),
		Generation:  run.Generation,
		Reason:      reason,
		Trigger:     trigger,
		RequestedAt: run.Annotations[meta.ReconcileRequestAnnotation],
	}
	if artifact == nil {
		artifact = s.sourceArtifact(ctx, run)
	}
	if artifact != nil {
		req.Revision, req.Digest = artifact.Revision, artifact.Digest
	}
	s.enqueue(req, msgID)
}

// sourceArtifact is the artifact of the KCLRun's source as cached, if any.
func (s *Service) sourceArtifact(ctx context.Context, run *kclv1.KCLRun) *meta.Artifact {
	kind := run.Spec.SourceRef.Kind
	newObj, ok := sourceKinds[kind]
	if !ok || !s.sourceKinds[kind] {
		return nil
	}
	src := newObj()
	key := types.NamespacedName{Namespace: run.SourceNamespace(), Name: run.Spec.SourceRef.Name}
	if err := s.mgr.GetCache().Get(ctx, key, src); err != nil {
		return nil
	}
	return src.GetArtifact()
}

func generationID(run *kclv1.KCLRun) string {
	return fmt.Sprintf("%s/generation/%d", run.UID, run.Generation)
}
