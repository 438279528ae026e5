package applier

import (
	"errors"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/apiserveroutage"
	"github.com/kcl-lang/flux-kcl-controller/internal/arguments"
)

// Where Ready=False comes from: every failed reconcile is sorted by
// classify into a failureKind, and failureTable says what that kind means
// for the KCLRun: the Ready reason, when to try again, and the event.
// Reconcile paths return typed errors and call fail; none picks a reason.

// failureKind names one way a reconcile fails.
type failureKind string

const (
	failureTransient           failureKind = "transient"
	failureAPIServerDown       failureKind = "apiserver unavailable"
	failureInvalidExpression   failureKind = "invalid CEL expression"
	failureInvalidMode         failureKind = "invalid drift detection or output mode"
	failureSourceAccessDenied  failureKind = "source access denied"
	failureSourceNotReady      failureKind = "source not ready"
	failureDependencyNotReady  failureKind = "dependency not ready"
	failureArgumentsNotFound   failureKind = "arguments not found"
	failureImagePolicyHeld     failureKind = "image policy held"
	failureProgram             failureKind = "program error"
	failureDependencyRefused   failureKind = "package dependency refused"
	failureArtifactRefused     failureKind = "artifact refused"
	failureArtifactUnavailable failureKind = "artifact unavailable"
	failureRequestRefused      failureKind = "request refused by a worker"
	failureClusterSetup        failureKind = "target cluster setup"
	failureApplyRefused        failureKind = "apply refused by the apiserver"
	failurePrune               failureKind = "prune"
	failureHealthCheck         failureKind = "health check"
	failureHealthCheckCanceled failureKind = "health check canceled"
	failureDeletion            failureKind = "deletion"
	failurePublish             failureKind = "publish"
)

// retryPolicy is when a failed KCLRun is reconciled again.
type retryPolicy int

const (
	// retryBackoff naks with exponential backoff, bounded by spec.retryInterval
	// and --max-retry-backoff (4 s while the apiserver or a worker is unreachable).
	retryBackoff retryPolicy = iota
	// retryInterval acks: the watcher schedules spec.retryInterval from the status.
	retryInterval
	// retryDependency naks with --requeue-dependency.
	retryDependency
	// retrySoon naks with canceledRetry, for the revision that is waiting.
	retrySoon
	// retryOnChange acks and stalls: only a change of the KCLRun can fix it.
	retryOnChange
	// retryWhenBack naks as soon as the apiserver is ready again, at the
	// latest after the backoff: a reconcile cut by an outage follows the
	// apiserver's return, not a backoff grown through the outage.
	retryWhenBack
)

// eventSeverity is the event a failure sends, if any.
type eventSeverity int

const (
	eventWarning eventSeverity = iota
	eventInfo
	eventNone
)

// failureRule is what one failureKind does to the KCLRun.
type failureRule struct {
	// reason is the Ready=False reason and the event's; with noCondition,
	// only the event's.
	reason string
	retry  retryPolicy
	event  eventSeverity
	// alsoFalse is a condition marked False beside Ready, with the same reason.
	alsoFalse string
	// noCondition leaves the status alone (deletion, or no KCLRun to mark).
	noCondition bool
}

var failureTable = map[failureKind]failureRule{
	failureTransient:           {reason: v1alpha1.ReconciliationFailed, retry: retryBackoff},
	failureAPIServerDown:       {reason: v1alpha1.ReconciliationFailed, retry: retryWhenBack},
	failureInvalidExpression:   {reason: v1alpha1.InvalidCELExpressionReason, retry: retryOnChange},
	failureInvalidMode:         {reason: v1alpha1.InvalidRequestReason, retry: retryOnChange},
	failureSourceAccessDenied:  {reason: v1alpha1.AccessDeniedReason, retry: retryOnChange},
	failureSourceNotReady:      {reason: v1alpha1.ArtifactFailedReason, retry: retryDependency, event: eventNone},
	failureDependencyNotReady:  {reason: v1alpha1.DependencyNotReadyReason, retry: retryDependency, event: eventNone},
	failureArgumentsNotFound:   {reason: v1alpha1.ArgumentsNotFoundReason, retry: retryInterval},
	failureImagePolicyHeld:     {reason: v1alpha1.ImagePolicyHeldReason, retry: retryInterval, alsoFalse: v1alpha1.ImagesResolvedCondition},
	failureProgram:             {reason: v1alpha1.CompileFailedReason, retry: retryInterval},
	failureDependencyRefused:   {reason: v1alpha1.DependencyRefusedReason, retry: retryInterval},
	failureArtifactRefused:     {reason: v1alpha1.ArtifactFailedReason, retry: retryInterval},
	failureArtifactUnavailable: {reason: v1alpha1.ArtifactFailedReason, retry: retryBackoff},
	failureRequestRefused:      {reason: v1alpha1.InvalidRequestReason, retry: retryOnChange},
	failureClusterSetup:        {reason: v1alpha1.ReconciliationFailed, retry: retryInterval},
	failureApplyRefused:        {reason: v1alpha1.ReconciliationFailed, retry: retryInterval},
	failurePrune:               {reason: v1alpha1.PruneFailedReason, retry: retryInterval},
	failureHealthCheck:         {reason: v1alpha1.HealthCheckFailedReason, retry: retryInterval, alsoFalse: meta.HealthyCondition},
	failureHealthCheckCanceled: {reason: v1alpha1.HealthCheckCanceledReason, retry: retrySoon, event: eventInfo},
	failureDeletion:            {reason: v1alpha1.PruneFailedReason, retry: retryBackoff, noCondition: true},
	// Storage, CRD and RBAC are fixed by an operator, not by retrying at once:
	// the retry interval keeps it to one warning per attempt.
	failurePublish: {reason: v1alpha1.PublishFailedReason, retry: retryInterval},
}

// The typed errors of the reconcile stages that have no error type of their
// own; the others (source, compile, health, arguments) are declared where
// they arise.
type (
	// dependencyNotReadyError: a dependsOn entry is missing, not Ready, or
	// behind the source revision.
	dependencyNotReadyError struct{ msg string }
	// imagesHeldError: $imagepolicy markers wait for their policies.
	imagesHeldError struct{ msg string }
	// clusterSetupError: the target cluster's client (impersonation,
	// kubeConfig) or its REST mapping of the objects could not be made.
	clusterSetupError struct{ err error }
	// applyError: the server-side apply failed; the apiserver's status error
	// inside tells a refusal from an outage.
	applyError struct{ err error }
	// pruneError: stale objects could not be deleted, or an ExternalArtifact
	// the KCLRun no longer publishes (collectUnpublished).
	pruneError struct{ err error }
	// healthCheckError: the applied objects did not become healthy in time.
	healthCheckError struct{ err error }
	// deletionError: the inventory of a deleted KCLRun could not be deleted.
	deletionError struct{ err error }
)

func (e *dependencyNotReadyError) Error() string { return e.msg }
func (e *imagesHeldError) Error() string         { return e.msg }
func (e *clusterSetupError) Error() string       { return e.err.Error() }
func (e *clusterSetupError) Unwrap() error       { return e.err }
func (e *applyError) Error() string              { return e.err.Error() }
func (e *applyError) Unwrap() error              { return e.err }
func (e *pruneError) Error() string              { return e.err.Error() }
func (e *pruneError) Unwrap() error              { return e.err }
func (e *healthCheckError) Error() string        { return e.err.Error() }
func (e *healthCheckError) Unwrap() error        { return e.err }
func (e *deletionError) Error() string           { return e.err.Error() }
func (e *deletionError) Unwrap() error           { return e.err }

// classify sorts an error by its type; anything unknown is transient.
func classify(err error) failureKind {
	var (
		canceled   *healthCheckCanceledError
		invalidCEL *invalidExpressionError
		driftMode  *driftModeError
		outputMode *outputModeError
		publish    *publishError
		denied     *accessDeniedError
		notReady   *sourceNotReadyError
		depWait    *dependencyNotReadyError
		missing    *arguments.NotFoundError
		held       *imagesHeldError
		prog       *programError
		art        *artifactError
		spec       *specError
		setup      *clusterSetupError
		applyErr   *applyError
		prune      *pruneError
		health     *healthCheckError
		deletion   *deletionError
	)
	switch {
	case errors.As(err, &deletion):
		return failureDeletion
	case errors.As(err, &canceled):
		return failureHealthCheckCanceled
	case errors.As(err, &invalidCEL):
		return failureInvalidExpression
	case errors.As(err, &driftMode), errors.As(err, &outputMode):
		return failureInvalidMode
	case errors.As(err, &publish):
		return failurePublish
	case errors.As(err, &denied):
		return failureSourceAccessDenied
	case errors.As(err, &notReady):
		return failureSourceNotReady
	case errors.As(err, &depWait):
		return failureDependencyNotReady
	case errors.As(err, &missing):
		return failureArgumentsNotFound
	case errors.As(err, &held):
		return failureImagePolicyHeld
	case errors.As(err, &prog) && prog.dependencyRefused:
		return failureDependencyRefused
	case errors.As(err, &prog):
		return failureProgram
	case errors.As(err, &art) && art.permanent:
		return failureArtifactRefused
	case errors.As(err, &art):
		return failureArtifactUnavailable
	case errors.As(err, &spec):
		return failureRequestRefused
	case errors.As(err, &setup):
		return failureClusterSetup
	case errors.As(err, &applyErr):
		// Requests the apiserver refuses (RBAC of the impersonated account,
		// validation) fail the same way again: no backoff storm.
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
			return failureApplyRefused
		}
		if apiserveroutage.Unavailable(err) {
			return failureAPIServerDown
		}
		return failureTransient
	case errors.As(err, &prune):
		return failurePrune
	case errors.As(err, &health):
		return failureHealthCheck
	case apiserveroutage.Unavailable(err):
		// Refused or cut connections, 503: the KCLRun's apiserver or, for
		// spec.kubeConfig, its target's; the retry probes the first.
		return failureAPIServerDown
	default:
		return failureTransient
	}
}

// fail records err on obj as the table says and returns the outcome; obj is
// nil when there is no KCLRun status to mark (it could not be read).
func (s *Service) fail(obj *v1alpha1.KCLRun, err error, delivered uint64, revision string) Outcome {
	rule := failureTable[classify(err)]
	out := Outcome{Result: ResultFailed, Err: err, revision: revision, event: rule.event, eventReason: rule.reason}
	if obj == nil {
		// Nothing to report on: the KCLRun could not be read or updated.
		out.event = eventNone
	}
	if obj != nil && !rule.noCondition {
		if rule.alsoFalse != "" {
			conditions.MarkFalse(obj, rule.alsoFalse, rule.reason, "%s", err.Error())
		}
		if rule.retry == retryOnChange {
			conditions.MarkStalled(obj, rule.reason, "%s", err.Error())
			conditions.MarkFalse(obj, meta.ReadyCondition, rule.reason, "%s", err.Error())
			conditions.Delete(obj, meta.ReconcilingCondition)
		} else {
			markNotReady(obj, rule.reason, err.Error())
		}
	}
	switch rule.retry {
	case retryBackoff:
		out.RetryAfter = s.backoffFor(err, delivered, obj)
	case retryWhenBack:
		out.RetryAfter = s.backoffFor(err, delivered, obj)
		out.retryWhenBack = true
	case retryDependency:
		out.Result = ResultWaiting
		out.RetryAfter = s.cfg.RequeueDependency
	case retrySoon:
		out.RetryAfter = canceledRetry
	case retryOnChange:
		out.Result = ResultStalled
	case retryInterval:
	}
	return out
}

// transient is fail for a KCLRun that could not be read or updated.
func (s *Service) transient(err error, delivered uint64) Outcome {
	return s.fail(nil, err, delivered, "")
}

// backoffFor is the exponential backoff, bounded by the retry interval.
func (s *Service) backoffFor(err error, delivered uint64, obj *v1alpha1.KCLRun) time.Duration {
	limit := s.cfg.MaxBackoff
	if obj != nil {
		if ri := obj.GetRetryInterval(); ri > 0 && ri < limit {
			limit = ri
		}
	}
	if unreachable(err) {
		limit = min(limit, unreachableBackoff)
	}
	return backoff(int(delivered), limit)
}

// recordFailure sends the event of a failed outcome, as the table says.
func (s *Service) recordFailure(obj *v1alpha1.KCLRun, out Outcome) {
	if out.Err == nil || out.event == eventNone {
		return
	}
	s.events.record(obj, out.revision, out.event == eventInfo, out.eventReason, out.Err.Error())
}

// backoff is 1s, 2s, 4s… capped.
func backoff(attempt int, limit time.Duration) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	d := time.Second << min(attempt-1, 20)
	return min(d, limit)
}

// markNotReady is the Ready=False of a failed reconcile; Reconciling and Stalled go,
// as they describe an attempt that has ended.
func markNotReady(obj *v1alpha1.KCLRun, reason, msg string) {
	conditions.MarkFalse(obj, meta.ReadyCondition, reason, "%s", msg)
	conditions.Delete(obj, meta.ReconcilingCondition)
	conditions.Delete(obj, meta.StalledCondition)
}

// reasonOf is the reason a failure was marked with, for events and metrics.
func reasonOf(obj *v1alpha1.KCLRun) string {
	if r := conditions.GetReason(obj, meta.ReadyCondition); r != "" {
		return r
	}
	return v1alpha1.ReconciliationFailed
}
