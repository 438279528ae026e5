package applier

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/fluxcd/pkg/ssa"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/arguments"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
	"github.com/kcl-lang/flux-kcl-controller/internal/objectprep"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// Results of a reconcile, as reported to hooks and metrics.
const (
	ResultApplied = "applied"
	// ResultPublished: spec.output.mode ExternalArtifact, the objects were
	// published, not applied.
	ResultPublished = "published"
	ResultNoOp      = "noop"
	ResultFailed    = "failed"
	ResultStalled   = "stalled"
	ResultWaiting   = "waiting"
	ResultSuspended = "suspended"
	ResultDeleted   = "deleted"
	ResultGone      = "gone"
	// ResultOtherShard: the KCLRun is outside --watch-label-selector; its own
	// shard reconciles it.
	ResultOtherShard = "other-shard"
	// ResultDriftChecked: in drift detection's warn mode, the inputs already
	// applied were dry-run against the cluster and the drift reported, not corrected.
	ResultDriftChecked = "drift-checked"
)

// Outcome is how one reconcile ended and when to try again.
type Outcome struct {
	Result string
	// RetryAfter > 0 naks the request with that delay; 0 acks it (the watcher
	// schedules the interval or retry interval from the status).
	RetryAfter time.Duration
	// Err is the failure, if any.
	Err error
	// Changes summarises the change set of an apply.
	Changes map[ssa.Action][]string
	// Request is the reconcile request answered: its reason and trigger say
	// why the reconcile ran (set before Hooks.Exit).
	Request reconcilerequest.Request
	// Delivered is how many times the server delivered the request: 1
	// unless an earlier attempt handed it back.
	Delivered uint64

	fingerprint string
	revision    string
	// digest identifies the compiled objects, when the reconcile compiled.
	digest string
	// event and eventReason are the failure's event (failureTable).
	event       eventSeverity
	eventReason string
	// retryWhenBack retries after RetryAfter or as soon as the apiserver,
	// found down, is ready again (failureTable's retryWhenBack).
	retryWhenBack bool
}

// reconcile runs one Flux-style reconciliation of the KCLRun named by req.
func (s *Service) reconcile(ctx context.Context, req reconcilerequest.Request, delivered uint64) Outcome {
	key := types.NamespacedName{Namespace: req.Namespace, Name: req.Name}
	ctx = forTriggeringRollout(s.withWatchCache(ctx, req), req)
	obj, err := s.readKCLRun(ctx, key)
	if err != nil {
		if apierrors.IsNotFound(err) {
			s.forget(ctx, key)
			return Outcome{Result: ResultGone}
		}
		return s.transient(fmt.Errorf("reading KCLRun %s: %w", key, err), delivered)
	}
	if !s.inShard(obj) {
		// Relabelled to another shard since the request was published, or another
		// instance with a different selector shares this shard's names.
		s.log.Info("KCLRun is outside --watch-label-selector, left to its own shard; if this repeats, give each instance sharing the NATS its own --shard",
			"kclrun", req.Key(), "reason", req.Reason, "shard", s.cfg.Shard, "labelSelector", s.cfg.WatchLabelSelector)
		return Outcome{Result: ResultOtherShard}
	}
	start := time.Now()
	defer func() { s.metrics.record(obj, start) }()

	if !obj.DeletionTimestamp.IsZero() {
		out := s.finalize(ctx, obj, delivered)
		s.recordFailure(obj, out)
		return out
	}
	if needsFinalizer(obj) {
		if err := s.addFinalizer(ctx, obj); err != nil {
			return s.transient(fmt.Errorf("adding finalizer: %w", err), delivered)
		}
	}
	if obj.Spec.Suspend {
		s.log.V(1).Info("reconciliation is suspended", "kclrun", req.Key())
		return Outcome{Result: ResultSuspended}
	}

	status := &statusWriter{client: s.client, base: obj.DeepCopy()}
	// What Flux's closing event depends on: a new revision, generation or readiness.
	wasReady, applied, observed := conditions.IsReady(obj), obj.Status.LastAppliedRevision, obj.Status.ObservedGeneration
	out := s.reconcileRun(ctx, obj, status, req, delivered)

	obj.Status.ObservedGeneration = obj.Generation
	if out.digest != "" {
		obj.Status.History.Upsert(out.digest, time.Now(), time.Since(start), reasonOf(obj), map[string]string{"revision": out.revision})
	}
	if v, ok := meta.ReconcileAnnotationValue(obj.GetAnnotations()); ok {
		obj.Status.LastHandledReconcileAt = v
	}
	s.recordFailure(obj, out)
	if err := status.write(ctx, obj); err != nil {
		return s.transient(fmt.Errorf("writing status: %w", err), delivered)
	}
	if out.fingerprint != "" {
		s.storeFingerprint(ctx, obj, out.fingerprint, out.digest)
	} else if out.Result != ResultNoOp {
		s.dropFingerprint(ctx, key)
	}
	if (out.Result == ResultApplied || out.Result == ResultPublished) && len(out.Changes) > 0 {
		s.events.record(obj, out.revision, true, v1alpha1.ReconciliationSucceeded, changeSummary(out.Changes))
	}
	if conditions.IsReady(obj) && (!wasReady || obj.Status.LastAppliedRevision != applied || observed != obj.Generation) {
		s.events.recordFinished(obj, time.Since(start))
	}
	s.metrics.result(out.Result)
	return out
}

// inShard reports whether obj matches --watch-label-selector.
func (s *Service) inShard(obj *v1alpha1.KCLRun) bool {
	return s.selector.Matches(labels.Set(obj.Labels))
}

// reconcileRun does the work between reading the KCLRun and writing its status;
// it records its verdict in obj's conditions.
func (s *Service) reconcileRun(ctx context.Context, obj *v1alpha1.KCLRun, status *statusWriter, req reconcilerequest.Request, delivered uint64) (out Outcome) {
	if err := validateExpressions(obj); err != nil {
		return s.fail(obj, err, delivered, "")
	}
	if err := validateDriftMode(obj); err != nil {
		return s.fail(obj, err, delivered, "")
	}
	if err := validateOutputMode(obj); err != nil {
		return s.fail(obj, err, delivered, "")
	}
	artifact, err := s.sourceArtifact(ctx, obj)
	if err != nil {
		return s.fail(obj, err, delivered, "")
	}
	if err := s.dependenciesReady(ctx, obj, artifact); err != nil {
		return s.fail(obj, err, delivered, "")
	}
	revision := artifact.Revision
	obj.Status.LastAttemptedRevision = revision
	obj.Status.LastAttemptedRevisionDigest = artifact.Digest

	args, argsDigest, err := arguments.Read(ctx, s.client, obj)
	if err != nil {
		return s.fail(obj, err, delivered, revision)
	}
	known, given, err := s.knownPolicies(ctx, obj)
	if err != nil {
		return s.fail(obj, err, delivered, "")
	}
	fp := fingerprint(obj, artifact, argsDigest, known)
	if given.sameImages(obj.Status.ImageRollouts) && s.published(obj) && s.isNoOp(ctx, obj, req, revision, fp) {
		// A new target held back changes the status only (heldBack).
		obj.Status.ImageRollouts = given.inOrder(obj.Status.ImagePolicies)
		return Outcome{Result: ResultNoOp, revision: revision}
	}
	if obj.Generation != obj.Status.ObservedGeneration || revision != obj.Status.LastAppliedRevision {
		s.markProgressing(ctx, status, obj, revision)
	}

	resolved, err := s.resolve(ctx, obj, artifact, known, given)
	if err != nil {
		return s.fail(obj, err, delivered, revision)
	}
	if !slices.Equal(obj.Status.ImagePolicies, resolved.policies) {
		// The program names other policies than the status did (always on a
		// first sync): the applied inputs are the ones just resolved, and the
		// next reconcile reads those.
		fp = fingerprint(obj, artifact, argsDigest, resolved.used)
	}
	obj.Status.ImagePolicies = resolved.policies
	// In the same write as this attempt's verdict: the watcher reads Ready
	// at the image a rollout gave from the two together.
	obj.Status.ImageRollouts = resolved.rollouts
	if len(resolved.held) > 0 {
		msg := "image policy markers held: " + resolved.held[0]
		if n := len(resolved.held); n > 1 {
			msg += fmt.Sprintf(" (and %d more)", n-1)
		}
		return s.fail(obj, &imagesHeldError{msg}, delivered, revision)
	}
	if len(resolved.policies) > 0 {
		conditions.MarkTrue(obj, v1alpha1.ImagesResolvedCondition, v1alpha1.SucceededReason, "%d image policy markers resolved", len(resolved.images))
	} else {
		conditions.Delete(obj, v1alpha1.ImagesResolvedCondition)
	}

	// warn corrects nothing: the inputs last applied are dry-run, not applied again.
	publishing := obj.GetOutputMode() == v1alpha1.OutputExternalArtifact
	checkOnly := !publishing && obj.GetDriftDetectionMode() == v1alpha1.DriftDetectionWarn && s.inputsApplied(ctx, obj, revision, fp)

	objects, digest, err := s.compile(ctx, obj, artifact, args, resolved.substitutions)
	if err != nil {
		return s.fail(obj, err, delivered, revision)
	}
	if err := s.invalidateFingerprint(ctx, status, obj, digest); err != nil {
		// Neither the bucket nor the apiserver takes a write: applying now could
		// leave a record that matches other objects than the cluster's.
		return s.transient(err, delivered)
	}
	// Whatever follows goes into status.history under the objects' digest.
	defer func() { out.digest = digest }()

	cluster, err := s.clusters.forKCLRun(ctx, s.client, obj, s.cfg.DefaultServiceAccount)
	if err != nil {
		return s.fail(obj, &clusterSetupError{err}, delivered, revision)
	}
	if err := objectprep.Normalize(obj, cluster.mapper, objects); err != nil {
		return s.fail(obj, &clusterSetupError{err}, delivered, revision)
	}
	if publishing {
		return s.publishRun(ctx, cluster, obj, objects, revision, fp, resolved.images, delivered)
	}
	if checkOnly && digest == latestDigest(obj) {
		drifted, err := s.findDrift(ctx, cluster, obj, objects)
		if err != nil {
			return s.fail(obj, &applyError{err}, delivered, revision)
		}
		s.recordDrift(obj, revision, drifted)
		s.watchDrift(cluster, obj, obj.Status.Inventory)
		return Outcome{Result: ResultDriftChecked, fingerprint: fp, revision: revision}
	}
	changes, err := s.apply(ctx, cluster, obj, objects)
	if err != nil {
		if changes != nil && len(changes.Entries) > 0 {
			// Keep what this attempt created, so a later apply or prune owns it.
			obj.Status.Inventory = mergeInventories(inventory.FromChangeSet(changes), obj.Status.Inventory)
		}
		return s.fail(obj, &applyError{err}, delivered, revision)
	}
	newInventory := inventory.FromChangeSet(changes)
	summary := changes.ToGroupedMap()

	if pruned, err := s.prune(ctx, cluster, obj, newInventory); err != nil {
		// Keep the objects that could not be pruned in the inventory so the
		// next attempt prunes them.
		obj.Status.Inventory = mergeInventories(newInventory, obj.Status.Inventory)
		out := s.fail(obj, &pruneError{err}, delivered, revision)
		out.Changes = summary
		return out
	} else if pruned != nil {
		for k, v := range pruned.ToGroupedMap() {
			summary[k] = append(summary[k], v...)
		}
	}
	obj.Status.Inventory = newInventory
	s.recordDrift(obj, revision, nil)
	s.watchDrift(cluster, obj, newInventory)
	// Back from mode ExternalArtifact: what it published goes, as the pruned objects did.
	if err := s.collectUnpublished(ctx, obj, revision); err != nil {
		out := s.fail(obj, err, delivered, revision)
		out.Changes = summary
		return out
	}

	// Skipped objects (ssa: Ignore, reconcile: disabled) are the operator's:
	// their health is not ours to wait for, as in kustomize-controller.
	if checked, err := s.checkHealth(ctx, cluster, obj, inventory.FromChangeSet(withoutSkipped(changes)), revision); err != nil {
		out := s.fail(obj, &healthCheckError{err}, delivered, revision) // a canceled check stays canceled (classify)
		out.Changes = summary
		return out
	} else if checked {
		conditions.MarkTrue(obj, meta.HealthyCondition, v1alpha1.SucceededReason, "Health check passed")
	} else {
		conditions.Delete(obj, meta.HealthyCondition)
	}

	obj.Status.LastAppliedRevision = revision
	for _, msg := range imageChanges(obj.Status.Images, resolved.images) {
		s.events.record(obj, revision, true, v1alpha1.ImageUpdatedReason, msg)
	}
	obj.Status.Images = resolved.images
	conditions.MarkTrue(obj, meta.ReadyCondition, v1alpha1.ReconciliationSucceeded, "Applied revision: %s", revision)
	conditions.Delete(obj, meta.ReconcilingCondition)
	conditions.Delete(obj, meta.StalledCondition)
	delete(summary, ssa.UnchangedAction)
	delete(summary, ssa.SkippedAction)
	return Outcome{Result: ResultApplied, Changes: summary, fingerprint: fp, revision: revision}
}

// markProgressing shows a new generation or revision in progress, as Flux
// does, before the slow part (compile, apply, health checks) starts. The
// status write waits for cfg.ProgressStatusDelay: most reconciles end first,
// and their verdict is the only write.
func (s *Service) markProgressing(ctx context.Context, status *statusWriter, obj *v1alpha1.KCLRun, revision string) {
	conditions.MarkReconciling(obj, v1alpha1.ProgressingReason, "Running reconciliation for revision %s", revision)
	conditions.MarkUnknown(obj, meta.ReadyCondition, v1alpha1.ProgressingReason, "Reconciliation in progress")
	status.showProgress(ctx, obj, s.cfg.ProgressStatusDelay, func(err error) {
		s.log.V(1).Info("reporting progress failed", "kclrun", obj.Namespace+"/"+obj.Name, "error", err.Error())
	})
}

// forget drops what the applier keeps about a KCLRun that is gone.
func (s *Service) forget(ctx context.Context, key types.NamespacedName) {
	s.dropFingerprint(ctx, key)
	s.metrics.forget(key)
}

// canceledRetry is the delay before the reconcile of the revision that
// canceled a health check.
const canceledRetry = 100 * time.Millisecond

// unreachableBackoff bounds the retries of a reconcile that could not reach
// the apiserver or a worker: the backoff grown through an outage would
// otherwise keep the KCLRuns waiting long after it ended (16 s after a 16 s
// apiserver restart at N = 1,000). Refused connections cost the down side
// nothing.
const unreachableBackoff = 4 * time.Second

// unreachable tells a failure to reach the apiserver or a worker (refused or
// reset connections, an apiserver shutting down or unavailable) from one of
// the request itself.
func unreachable(err error) bool {
	return utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsTooManyRequests(err) || workerUnavailable(err)
}

func workerUnavailable(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.Unavailable
}

// statusWriter patches the status against what it last wrote, and only when
// it changed: a no-op reconcile costs no apiserver write. The server's reply
// goes to a copy, so the reconcile's object keeps its in-memory changes.
type statusWriter struct {
	client client.Client

	mu       sync.Mutex
	base     *v1alpha1.KCLRun
	progress *time.Timer
	done     bool
}

// showProgress writes a snapshot of obj's status after delay unless the
// verdict (write) comes first; with no delay it writes at once.
func (w *statusWriter) showProgress(ctx context.Context, obj *v1alpha1.KCLRun, delay time.Duration, failed func(error)) {
	snapshot := obj.DeepCopy()
	w.mu.Lock()
	defer w.mu.Unlock()
	if delay <= 0 {
		if err := w.patch(ctx, snapshot); err != nil {
			failed(err)
		}
		return
	}
	if w.progress != nil {
		w.progress.Stop()
	}
	w.progress = time.AfterFunc(delay, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.done {
			return
		}
		if err := w.patch(ctx, snapshot); err != nil {
			failed(err)
		}
	})
}

// record writes obj's status now, before the verdict; a pending progress
// write (an older snapshot, which would undo this one) is dropped.
func (w *statusWriter) record(ctx context.Context, obj *v1alpha1.KCLRun) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.progress != nil {
		w.progress.Stop()
	}
	return w.patch(ctx, obj.DeepCopy())
}

// write records the reconcile's verdict; a pending progress write is dropped.
func (w *statusWriter) write(ctx context.Context, obj *v1alpha1.KCLRun) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.progress != nil {
		w.progress.Stop()
	}
	return w.patch(ctx, obj)
}

func (w *statusWriter) patch(ctx context.Context, obj *v1alpha1.KCLRun) error {
	if equality.Semantic.DeepEqual(w.base.Status, obj.Status) {
		return nil
	}
	target := obj.DeepCopy()
	if err := w.client.Status().Patch(ctx, target, client.MergeFrom(w.base), client.FieldOwner(FieldManager)); err != nil {
		return err
	}
	w.base = obj.DeepCopy()
	return nil
}

func withoutSkipped(changes *ssa.ChangeSet) *ssa.ChangeSet {
	out := ssa.NewChangeSet()
	for _, e := range changes.Entries {
		if e.Action != ssa.SkippedAction {
			out.Add(e)
		}
	}
	return out
}

func mergeInventories(a, b *v1alpha1.ResourceInventory) *v1alpha1.ResourceInventory {
	out := inventory.New()
	seen := map[string]bool{}
	for _, inv := range []*v1alpha1.ResourceInventory{a, b} {
		if inv == nil {
			continue
		}
		for _, e := range inv.Entries {
			if !seen[e.ID] {
				seen[e.ID] = true
				out.Entries = append(out.Entries, e)
			}
		}
	}
	return out
}
