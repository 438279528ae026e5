package applier

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/arguments"
)

// The failure table, read as a reader of a KCLRun's status sees it: each
// typed error of a reconcile stage gives one Ready reason, retry and event.
func TestFailureTable(t *testing.T) {
	cm := schema.GroupResource{Resource: "configmaps"}
	forbidden := apierrors.NewForbidden(cm, "app", errors.New(`User "system:serviceaccount:team:deployer" cannot patch resource`))
	invalid := apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "app", field.ErrorList{field.Invalid(field.NewPath("data"), 1, "must be a string")})
	conflict := apierrors.NewConflict(cm, "app", errors.New("changed"))

	type want struct {
		kind      failureKind
		reason    string
		result    string
		retry     time.Duration // -1: exponential backoff
		event     eventSeverity
		stalled   bool
		alsoFalse string
	}
	const backoffRetry = -1
	for name, tc := range map[string]struct {
		err  error
		want want
	}{
		"untyped": {errors.New("boom"),
			want{failureTransient, v1alpha1.ReconciliationFailed, ResultFailed, backoffRetry, eventWarning, false, ""}},
		"forbidden outside apply (reading a Secret)": {fmt.Errorf("reading Secret: %w", forbidden),
			want{failureTransient, v1alpha1.ReconciliationFailed, ResultFailed, backoffRetry, eventWarning, false, ""}},
		"invalid CEL": {&invalidExpressionError{errors.New("bad")},
			want{failureInvalidExpression, v1alpha1.InvalidCELExpressionReason, ResultStalled, 0, eventWarning, true, ""}},
		"cross-namespace source": {&accessDeniedError{"blocked"},
			want{failureSourceAccessDenied, v1alpha1.AccessDeniedReason, ResultStalled, 0, eventWarning, true, ""}},
		"source not ready": {&sourceNotReadyError{"no artifact"},
			want{failureSourceNotReady, v1alpha1.ArtifactFailedReason, ResultWaiting, 2 * time.Second, eventNone, false, ""}},
		"dependency not ready": {&dependencyNotReadyError{"dependency 'a/b' is not ready"},
			want{failureDependencyNotReady, v1alpha1.DependencyNotReadyReason, ResultWaiting, 2 * time.Second, eventNone, false, ""}},
		"arguments not found": {fmt.Errorf("reading arguments: %w", &arguments.NotFoundError{}),
			want{failureArgumentsNotFound, v1alpha1.ArgumentsNotFoundReason, ResultFailed, 0, eventWarning, false, ""}},
		"image policy held": {&imagesHeldError{"held"},
			want{failureImagePolicyHeld, v1alpha1.ImagePolicyHeldReason, ResultFailed, 0, eventWarning, false, v1alpha1.ImagesResolvedCondition}},
		"compile error": {&programError{msg: "main.k:3:5: EvaluationError: boom"},
			want{failureProgram, v1alpha1.CompileFailedReason, ResultFailed, 0, eventWarning, false, ""}},
		"package dependency refused": {&programError{msg: "refused", dependencyRefused: true},
			want{failureDependencyRefused, v1alpha1.DependencyRefusedReason, ResultFailed, 0, eventWarning, false, ""}},
		"artifact refused": {&artifactError{msg: "too large", permanent: true},
			want{failureArtifactRefused, v1alpha1.ArtifactFailedReason, ResultFailed, 0, eventWarning, false, ""}},
		"artifact unavailable": {&artifactError{msg: "digest mismatch"},
			want{failureArtifactUnavailable, v1alpha1.ArtifactFailedReason, ResultFailed, backoffRetry, eventWarning, false, ""}},
		"unknown drift detection mode": {&driftModeError{"audit"},
			want{failureInvalidMode, v1alpha1.InvalidRequestReason, ResultStalled, 0, eventWarning, true, ""}},
		"publish: ExternalArtifact CRD missing": {&publishError{externalArtifactError("a", "b", &apimeta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact"}})},
			want{failurePublish, v1alpha1.PublishFailedReason, ResultFailed, 0, eventWarning, false, ""}},
		"unknown output mode": {&outputModeError{"Print"},
			want{failureInvalidMode, v1alpha1.InvalidRequestReason, ResultStalled, 0, eventWarning, true, ""}},
		"publish: storage read-only": {&publishError{&storageError{dir: "/data/externalartifact/a/b", err: errors.New("read-only file system")}},
			want{failurePublish, v1alpha1.PublishFailedReason, ResultFailed, 0, eventWarning, false, ""}},
		"worker refused the request": {&specError{"bad path"},
			want{failureRequestRefused, v1alpha1.InvalidRequestReason, ResultStalled, 0, eventWarning, true, ""}},
		"cluster setup": {&clusterSetupError{errors.New("no kubeconfig")},
			want{failureClusterSetup, v1alpha1.ReconciliationFailed, ResultFailed, 0, eventWarning, false, ""}},
		"apply forbidden": {&applyError{fmt.Errorf("apply failed: %w", forbidden)},
			want{failureApplyRefused, v1alpha1.ReconciliationFailed, ResultFailed, 0, eventWarning, false, ""}},
		"apply invalid": {&applyError{fmt.Errorf("apply failed: %w", invalid)},
			want{failureApplyRefused, v1alpha1.ReconciliationFailed, ResultFailed, 0, eventWarning, false, ""}},
		"apiserver refused the connection": {fmt.Errorf("reading KCLRun a/b: %w", refusedConnection),
			want{failureAPIServerDown, v1alpha1.ReconciliationFailed, ResultFailed, unreachableBackoff, eventWarning, false, ""}},
		"apply cut by an apiserver shutdown": {&applyError{fmt.Errorf("apply failed: %w", apierrors.NewServiceUnavailable("shutting down"))},
			want{failureAPIServerDown, v1alpha1.ReconciliationFailed, ResultFailed, unreachableBackoff, eventWarning, false, ""}},
		"apply conflict": {&applyError{fmt.Errorf("apply failed: %w", conflict)},
			want{failureTransient, v1alpha1.ReconciliationFailed, ResultFailed, backoffRetry, eventWarning, false, ""}},
		"prune": {&pruneError{errors.New("prune failed")},
			want{failurePrune, v1alpha1.PruneFailedReason, ResultFailed, 0, eventWarning, false, ""}},
		"health check": {&healthCheckError{errors.New("timeout")},
			want{failureHealthCheck, v1alpha1.HealthCheckFailedReason, ResultFailed, 0, eventWarning, false, meta.HealthyCondition}},
		"health check canceled": {&healthCheckCanceledError{source: "GitRepository/a/b", revision: "main@sha1:2"},
			want{failureHealthCheckCanceled, v1alpha1.HealthCheckCanceledReason, ResultFailed, canceledRetry, eventInfo, false, ""}},
		"health check canceled, as checkHealth's error": {&healthCheckError{&healthCheckCanceledError{source: "GitRepository/a/b", revision: "main@sha1:2"}},
			want{failureHealthCheckCanceled, v1alpha1.HealthCheckCanceledReason, ResultFailed, canceledRetry, eventInfo, false, ""}},
	} {
		t.Run(name, func(t *testing.T) {
			if got := classify(tc.err); got != tc.want.kind {
				t.Fatalf("classify = %q, want %q", got, tc.want.kind)
			}
			s := &Service{cfg: Config{MaxBackoff: 5 * time.Minute, RequeueDependency: 2 * time.Second}}
			obj := &v1alpha1.KCLRun{}
			out := s.fail(obj, tc.err, 3, "main@sha1:1")
			if out.Result != tc.want.result {
				t.Errorf("result %q, want %q", out.Result, tc.want.result)
			}
			if tc.want.retry == backoffRetry {
				if out.RetryAfter != backoff(3, 5*time.Minute) {
					t.Errorf("retry after %s, want backoff %s", out.RetryAfter, backoff(3, 5*time.Minute))
				}
			} else if out.RetryAfter != tc.want.retry {
				t.Errorf("retry after %s, want %s", out.RetryAfter, tc.want.retry)
			}
			if out.event != tc.want.event || out.eventReason != tc.want.reason {
				t.Errorf("event %d %q, want %d %q", out.event, out.eventReason, tc.want.event, tc.want.reason)
			}
			if conditions.IsReady(obj) || conditions.GetReason(obj, meta.ReadyCondition) != tc.want.reason ||
				conditions.GetMessage(obj, meta.ReadyCondition) != tc.err.Error() {
				t.Errorf("Ready %v %q %q, want False %q %q", conditions.IsReady(obj),
					conditions.GetReason(obj, meta.ReadyCondition), conditions.GetMessage(obj, meta.ReadyCondition), tc.want.reason, tc.err.Error())
			}
			if conditions.IsStalled(obj) != tc.want.stalled {
				t.Errorf("stalled %v, want %v", conditions.IsStalled(obj), tc.want.stalled)
			}
			if c := tc.want.alsoFalse; c != "" && (!conditions.IsFalse(obj, c) || conditions.GetReason(obj, c) != tc.want.reason) {
				t.Errorf("%s not False with %q", c, tc.want.reason)
			}
		})
	}
}

// Every kind has a rule, and a deletion failure only sends its event.
func TestFailureTableIsComplete(t *testing.T) {
	kinds := []failureKind{failureTransient, failureAPIServerDown, failureInvalidExpression, failureInvalidMode, failureSourceAccessDenied, failureSourceNotReady,
		failureDependencyNotReady, failureArgumentsNotFound, failureImagePolicyHeld, failureProgram, failureDependencyRefused,
		failureArtifactRefused, failureArtifactUnavailable, failureRequestRefused, failureClusterSetup, failureApplyRefused,
		failurePrune, failureHealthCheck, failureHealthCheckCanceled, failureDeletion, failurePublish}
	if len(kinds) != len(failureTable) {
		t.Errorf("%d kinds listed, %d in the table", len(kinds), len(failureTable))
	}
	for _, k := range kinds {
		if failureTable[k].reason == "" {
			t.Errorf("%q has no rule", k)
		}
	}

	s := &Service{cfg: Config{MaxBackoff: time.Minute}}
	obj := &v1alpha1.KCLRun{}
	out := s.fail(obj, &deletionError{errors.New("prune failed")}, 1, "main@sha1:1")
	if len(obj.Status.Conditions) != 0 || out.event != eventWarning || out.eventReason != v1alpha1.PruneFailedReason || out.RetryAfter == 0 {
		t.Errorf("deletion failure: conditions %v, event %d %q, retry %s", obj.Status.Conditions, out.event, out.eventReason, out.RetryAfter)
	}
	// Without a KCLRun to report on there is no event.
	if out := s.transient(errors.New("reading KCLRun"), 1); out.event != eventNone {
		t.Errorf("transient without a KCLRun sends event %d", out.event)
	}
}
