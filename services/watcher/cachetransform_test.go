package watcher

import (
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// The cache keeps what the handlers read and drops the rest.
func TestCacheTransformKeepsWhatTheHandlersRead(t *testing.T) {
	transform := cacheTransform()
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	ready := metav1.Condition{Type: meta.ReadyCondition, Status: metav1.ConditionTrue}

	run := &kclv1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Name: "r", ManagedFields: managed, Annotations: map[string]string{meta.ReconcileRequestAnnotation: "now"}},
		Spec:       kclv1.KCLRunSpec{SourceRef: kclv1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "s"}},
		Status: kclv1.KCLRunStatus{
			Conditions: []metav1.Condition{ready}, LastAppliedRevision: "r1", ImagePolicies: []string{"ns/p"},
			Inventory: &kclv1.ResourceInventory{}, Images: []kclv1.ResolvedImage{{}},
		},
	}
	if _, err := transform(run); err != nil {
		t.Fatal(err)
	}
	if run.ManagedFields != nil || run.Status.Inventory != nil || run.Status.Images != nil {
		t.Errorf("KCLRun kept managedFields, inventory or images: %+v", run)
	}
	if run.Spec.SourceRef.Name != "s" || len(run.Status.Conditions) != 1 || run.Status.LastAppliedRevision != "r1" ||
		len(run.Status.ImagePolicies) != 1 || run.Annotations[meta.ReconcileRequestAnnotation] != "now" {
		t.Errorf("KCLRun lost what the watcher reads: %+v", run)
	}

	artifact := &meta.Artifact{Revision: "main@sha1:abc", Digest: "sha256:def"}
	repo := &sourcev1.GitRepository{
		ObjectMeta: metav1.ObjectMeta{Name: "s", UID: "u", ManagedFields: managed, Labels: map[string]string{"a": "b"}},
		Spec:       sourcev1.GitRepositorySpec{URL: "https://example.invalid/repo"},
		Status:     sourcev1.GitRepositoryStatus{Artifact: artifact, Conditions: []metav1.Condition{ready}},
	}
	if _, err := transform(repo); err != nil {
		t.Fatal(err)
	}
	if repo.GetArtifact() != artifact || repo.UID != "u" {
		t.Errorf("GitRepository lost its artifact or identity: %+v", repo)
	}
	if repo.Spec.URL != "" || repo.Status.Conditions != nil || repo.Labels != nil || repo.ManagedFields != nil {
		t.Errorf("GitRepository kept what the watcher never reads: %+v", repo)
	}

	latest := &imagev1.ImageRef{Name: "ghcr.io/app", Tag: "1.0.1"}
	policy := &imagev1.ImagePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: managed},
		Spec:       imagev1.ImagePolicySpec{ImageRepositoryRef: meta.NamespacedObjectReference{Name: "repo"}},
		Status:     imagev1.ImagePolicyStatus{LatestRef: latest, Conditions: []metav1.Condition{ready}},
	}
	if _, err := transform(policy); err != nil {
		t.Fatal(err)
	}
	if policy.Status.LatestRef != latest || policy.Spec.ImageRepositoryRef.Name != "" || policy.Status.Conditions != nil {
		t.Errorf("ImagePolicy trimmed wrong: %+v", policy)
	}
}
