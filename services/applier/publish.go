package applier

import (
	"context"
	"errors"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/fluxcd/pkg/ssa"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/inventory"
	"github.com/kcl-lang/flux-kcl-controller/internal/objectprep"
)

// spec.output.mode ExternalArtifact: the rendered objects are not applied but
// published, as a tarball served by the applier (artifactstorage.go) and an
// ExternalArtifact (source.toolkit.fluxcd.io/v1, RFC-0012) pointing at it, for
// a Kustomization with sourceRef.kind ExternalArtifact to apply.

// publishedAction is the change-set action of an ExternalArtifact whose
// artifact moved, in the ReconciliationSucceeded event.
const publishedAction ssa.Action = "published"

// outputModeError: spec.output.mode is neither Apply nor ExternalArtifact
// (the CRD's enum refuses it; an older CRD may not).
type outputModeError struct{ mode string }

func (e *outputModeError) Error() string {
	return fmt.Sprintf("spec.output.mode %q is not one of %s, %s", e.mode, v1alpha1.OutputApply, v1alpha1.OutputExternalArtifact)
}

func validateOutputMode(obj *v1alpha1.KCLRun) error {
	switch mode := obj.GetOutputMode(); mode {
	case v1alpha1.OutputApply, v1alpha1.OutputExternalArtifact:
		return nil
	default:
		return &outputModeError{mode: mode}
	}
}

// publishError: the objects could not be published; the message says which
// part failed (the storage folder, the CRD, the write of the ExternalArtifact).
type publishError struct{ err error }

func (e *publishError) Error() string { return e.err.Error() }
func (e *publishError) Unwrap() error { return e.err }

// published tells whether the artifact of a KCLRun in mode ExternalArtifact
// is still served: a restart on an empty storage folder republishes even when
// the inputs did not change.
func (s *Service) published(obj *v1alpha1.KCLRun) bool {
	if obj.GetOutputMode() != v1alpha1.OutputExternalArtifact {
		return true
	}
	return s.storage != nil && s.storage.has(obj.Status.Artifact)
}

// publishRun ends a reconcile in mode ExternalArtifact: what a previous Apply
// left in the inventory is pruned (with spec.prune) and leaves it, then the
// objects are published, and an ExternalArtifact published under another
// name before is deleted. Nothing is applied, health checked or watched.
func (s *Service) publishRun(ctx context.Context, cl *cluster, obj *v1alpha1.KCLRun, objects []*unstructured.Unstructured,
	revision, fp string, images []v1alpha1.ResolvedImage, delivered uint64) Outcome {
	summary := map[ssa.Action][]string{}
	if obj.Status.Inventory != nil && len(obj.Status.Inventory.Entries) > 0 {
		empty := inventory.New()
		pruned, err := s.prune(ctx, cl, obj, empty)
		if err != nil {
			return s.fail(obj, &pruneError{err}, delivered, revision)
		}
		if pruned != nil {
			for k, v := range pruned.ToGroupedMap() {
				summary[k] = append(summary[k], v...)
			}
		}
		obj.Status.Inventory = empty
	}
	s.recordDrift(obj, revision, nil)

	name := obj.GetExternalArtifactName()
	artifact, err := s.publish(ctx, obj, name, objects, revision)
	if err != nil {
		return s.fail(obj, err, delivered, revision)
	}
	prev := obj.Status.Artifact
	if err := s.collectUnpublished(ctx, obj, revision); err != nil {
		// status.artifact keeps naming the old one until it is gone.
		out := s.fail(obj, err, delivered, revision)
		out.Changes = summary
		return out
	}
	if prev == nil || prev.Digest != artifact.Digest || prev.URL != artifact.URL {
		summary[publishedAction] = append(summary[publishedAction],
			fmt.Sprintf("%s/%s/%s %s", sourcev1.ExternalArtifactKind, obj.Namespace, name, artifact.Digest))
	}
	obj.Status.Artifact = artifact
	obj.Status.LastAppliedRevision = revision
	for _, msg := range imageChanges(obj.Status.Images, images) {
		s.events.record(obj, revision, true, v1alpha1.ImageUpdatedReason, msg)
	}
	obj.Status.Images = images
	conditions.Delete(obj, meta.HealthyCondition)
	conditions.MarkTrue(obj, meta.ReadyCondition, v1alpha1.ReconciliationSucceeded,
		"Published revision: %s as ExternalArtifact %s/%s", revision, obj.Namespace, name)
	conditions.Delete(obj, meta.ReconcilingCondition)
	conditions.Delete(obj, meta.StalledCondition)
	delete(summary, ssa.UnchangedAction)
	delete(summary, ssa.SkippedAction)
	return Outcome{Result: ResultPublished, Changes: summary, fingerprint: fp, revision: revision}
}

// publish stores the objects' tarball and points the ExternalArtifact at it.
func (s *Service) publish(ctx context.Context, obj *v1alpha1.KCLRun, name string, objects []*unstructured.Unstructured, revision string) (*meta.Artifact, error) {
	if s.storage == nil {
		return nil, &publishError{errors.New("spec.output.mode ExternalArtifact needs an applier with --storage-path (the chart's storage values), none is set")}
	}
	objectprep.Common(obj, objects)
	data, err := objectsTarGz(objects)
	if err != nil {
		return nil, &publishError{fmt.Errorf("rendering the artifact: %w", err)}
	}
	// Refused before anything is stored: the folder of another producer's
	// name is not this KCLRun's to write or to prune.
	current, found, err := s.ownExternalArtifact(ctx, obj, name)
	if err != nil {
		return nil, &publishError{err}
	}
	artifact, err := s.storage.store(obj.Namespace, name, revision, data)
	if err != nil {
		return nil, &publishError{err}
	}
	if err := s.writeExternalArtifact(ctx, obj, name, current, found, artifact); err != nil {
		return nil, &publishError{err}
	}
	return artifact, nil
}

// ownExternalArtifact reads the ExternalArtifact obj publishes to, and
// refuses one another object produces.
func (s *Service) ownExternalArtifact(ctx context.Context, obj *v1alpha1.KCLRun, name string) (current sourcev1.ExternalArtifact, found bool, err error) {
	err = s.client.Get(ctx, client.ObjectKey{Namespace: obj.Namespace, Name: name}, &current)
	switch {
	case apierrors.IsNotFound(err):
		return current, false, nil
	case err != nil:
		return current, false, externalArtifactError(obj.Namespace, name, err)
	case !producedBy(&current, obj):
		return current, false, fmt.Errorf("ExternalArtifact %s/%s exists and is not this KCLRun's (spec.sourceRef %s): set spec.output.externalArtifact.name to another name",
			obj.Namespace, name, describeRef(current.Spec.SourceRef))
	}
	return current, true, nil
}

// writeExternalArtifact server-side applies the ExternalArtifact (its
// sourceRef names the KCLRun, which owns it), then its status: the artifact
// and Ready, as source-controller writes a source's. One that another object
// produces is left alone; what is already so is not written again.
// current is the object ownExternalArtifact read, when found.
func (s *Service) writeExternalArtifact(ctx context.Context, obj *v1alpha1.KCLRun, name string, current sourcev1.ExternalArtifact, found bool, artifact *meta.Artifact) error {
	gvk := sourcev1.GroupVersion.WithKind(sourcev1.ExternalArtifactKind)
	if !found || !metav1.IsControlledBy(&current, obj) {
		ea := &unstructured.Unstructured{}
		ea.SetGroupVersionKind(gvk)
		ea.SetNamespace(obj.Namespace)
		ea.SetName(name)
		// No blockOwnerDeletion: that would need the finalizers of KCLRuns.
		ea.SetOwnerReferences([]metav1.OwnerReference{{
			APIVersion: v1alpha1.GroupVersion.String(), Kind: v1alpha1.KCLRunKind, Name: obj.Name, UID: obj.UID, Controller: ptr.To(true),
		}})
		ea.Object["spec"] = map[string]any{"sourceRef": map[string]any{
			"apiVersion": v1alpha1.GroupVersion.String(), "kind": v1alpha1.KCLRunKind, "name": obj.Name, "namespace": obj.Namespace,
		}}
		if err := s.client.Patch(ctx, ea, client.Apply, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
			return externalArtifactError(obj.Namespace, name, err)
		}
		current = sourcev1.ExternalArtifact{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(ea.Object, &current); err != nil {
			return fmt.Errorf("reading ExternalArtifact %s/%s: %w", obj.Namespace, name, err)
		}
	}

	ready := metav1.Condition{
		Type: meta.ReadyCondition, Status: metav1.ConditionTrue, Reason: meta.SucceededReason,
		Message:            fmt.Sprintf("stored artifact for revision '%s'", artifact.Revision),
		ObservedGeneration: current.Generation, LastTransitionTime: metav1.Now(),
	}
	if old := apimeta.FindStatusCondition(current.Status.Conditions, meta.ReadyCondition); old != nil && old.Status == ready.Status {
		ready.LastTransitionTime = old.LastTransitionTime
		if current.Status.Artifact != nil && equality.Semantic.DeepEqual(*current.Status.Artifact, *artifact) &&
			old.Reason == ready.Reason && old.Message == ready.Message && old.ObservedGeneration == ready.ObservedGeneration {
			return nil
		}
	}
	artifactMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(artifact)
	if err != nil {
		return fmt.Errorf("encoding the artifact: %w", err)
	}
	conditionMap, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&ready)
	if err != nil {
		return fmt.Errorf("encoding the Ready condition: %w", err)
	}
	status := &unstructured.Unstructured{}
	status.SetGroupVersionKind(gvk)
	status.SetNamespace(obj.Namespace)
	status.SetName(name)
	status.Object["status"] = map[string]any{"artifact": artifactMap, "conditions": []any{conditionMap}}
	if err := s.client.Status().Patch(ctx, status, client.Apply, client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return externalArtifactError(obj.Namespace, name, err)
	}
	return nil
}

// producedBy tells whether the ExternalArtifact's sourceRef names the KCLRun
// (or nothing: one created empty by hand is taken over).
func producedBy(ea *sourcev1.ExternalArtifact, obj *v1alpha1.KCLRun) bool {
	ref := ea.Spec.SourceRef
	if ref == nil {
		return true
	}
	ns := ref.Namespace
	if ns == "" {
		ns = ea.Namespace
	}
	return ref.Kind == v1alpha1.KCLRunKind && ref.Name == obj.Name && ns == obj.Namespace
}

func describeRef(ref *meta.NamespacedObjectKindReference) string {
	if ref == nil {
		return "none"
	}
	if ref.Namespace != "" {
		return ref.Kind + "/" + ref.Namespace + "/" + ref.Name
	}
	return ref.Kind + "/" + ref.Name
}

// externalArtifactError says why the ExternalArtifact could not be written,
// in the words an operator acts on.
func externalArtifactError(namespace, name string, err error) error {
	switch {
	case apimeta.IsNoMatchError(err):
		return fmt.Errorf("the ExternalArtifact CRD (%s) is not installed: it comes with Flux 2.7 or later (source-controller's CRDs): %w", sourcev1.GroupVersion, err)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("writing ExternalArtifact %s/%s is forbidden (the applier's role needs externalartifacts and externalartifacts/status): %w", namespace, name, err)
	default:
		return fmt.Errorf("writing ExternalArtifact %s/%s: %w", namespace, name, err)
	}
}

// unpublish removes what a deleted KCLRun published: the ExternalArtifact
// its status records and the one its spec names, with their files (the owner
// reference does the same where the garbage collector runs). Failures are
// logged: the KCLRun goes either way.
func (s *Service) unpublish(ctx context.Context, obj *v1alpha1.KCLRun) {
	names := map[string]bool{}
	if ns, name, ok := artifactOwner(obj.Status.Artifact); ok && ns == obj.Namespace {
		names[name] = true
	}
	if obj.Status.Artifact != nil && obj.GetOutputMode() == v1alpha1.OutputExternalArtifact {
		names[obj.GetExternalArtifactName()] = true
	}
	for name := range names {
		if _, err := s.withdraw(ctx, obj, name); err != nil {
			s.log.Error(err, "removing a published ExternalArtifact", "kclrun", obj.Namespace+"/"+obj.Name, "externalArtifact", name)
		}
	}
}

// collectUnpublished garbage-collects the ExternalArtifact that status.artifact
// says the KCLRun published and that it publishes no longer (spec.output.mode
// back to Apply, or another spec.output.externalArtifact.name), with its files,
// as Flux prunes what left its inventory; it runs once the new output is in
// place. status.artifact is the record: it is dropped only once that is done,
// so that a failure is retried.
func (s *Service) collectUnpublished(ctx context.Context, obj *v1alpha1.KCLRun, revision string) error {
	if obj.Status.Artifact == nil {
		return nil
	}
	ns, name, ok := artifactOwner(obj.Status.Artifact)
	publishing := obj.GetOutputMode() == v1alpha1.OutputExternalArtifact
	if ok && publishing && name == obj.GetExternalArtifactName() {
		return nil
	}
	// A path of another layout or namespace names nothing this KCLRun wrote.
	if ok && ns == obj.Namespace {
		deleted, err := s.withdraw(ctx, obj, name)
		if deleted {
			why := "spec.output.mode is " + v1alpha1.OutputApply
			if publishing {
				why = "spec.output.externalArtifact.name is " + obj.GetExternalArtifactName()
			}
			s.events.record(obj, revision, true, v1alpha1.PrunedReason,
				fmt.Sprintf("%s/%s/%s deleted: no longer published (%s)", sourcev1.ExternalArtifactKind, ns, name, why))
		}
		if err != nil {
			return &pruneError{fmt.Errorf("removing ExternalArtifact %s/%s, which this KCLRun no longer publishes, and its files: %w", ns, name, err)}
		}
	}
	obj.Status.Artifact = nil
	return nil
}

// withdraw deletes the ExternalArtifact namespace/name of the KCLRun, then its
// files. One that names another producer (producedBy, the publisher's rule)
// is left alone, and its files with it; one already gone (or no
// ExternalArtifact CRD) leaves only the files to remove. deleted tells
// whether this call deleted the object.
func (s *Service) withdraw(ctx context.Context, obj *v1alpha1.KCLRun, name string) (deleted bool, err error) {
	var ea sourcev1.ExternalArtifact
	err = s.client.Get(ctx, client.ObjectKey{Namespace: obj.Namespace, Name: name}, &ea)
	switch {
	case apierrors.IsNotFound(err), apimeta.IsNoMatchError(err):
	case err != nil:
		return false, fmt.Errorf("reading ExternalArtifact %s/%s: %w", obj.Namespace, name, err)
	case !producedBy(&ea, obj):
		s.log.Info("ExternalArtifact left in place: it names another producer", "kclrun", obj.Namespace+"/"+obj.Name,
			"externalArtifact", name, "sourceRef", describeRef(ea.Spec.SourceRef))
		return false, nil
	default:
		// The preconditions keep a replacement written since the read (by
		// another producer) from being deleted: the conflict is retried.
		err := s.client.Delete(ctx, &ea, client.Preconditions{UID: &ea.UID, ResourceVersion: &ea.ResourceVersion})
		switch {
		case apierrors.IsNotFound(err):
		case apierrors.IsForbidden(err):
			return false, fmt.Errorf("deleting ExternalArtifact %s/%s is forbidden (the applier's role needs delete on externalartifacts): %w", obj.Namespace, name, err)
		case err != nil:
			return false, fmt.Errorf("deleting ExternalArtifact %s/%s: %w", obj.Namespace, name, err)
		default:
			deleted = true
		}
	}
	if s.storage != nil {
		if err := s.storage.remove(obj.Namespace, name); err != nil {
			return deleted, err
		}
	}
	return deleted, nil
}
