package watcher

import (
	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// The watcher keeps every KCLRun, source and ImagePolicy in its caches, so
// their size grows with the KCLRuns (about 15 KiB each at 1,000, most of it
// managedFields and the KCLRun's inventory). What it never reads is dropped
// before an object is stored: managedFields on every kind, as Flux's
// controllers do, the parts of a KCLRun's status only the applier uses, and
// of sources and ImagePolicies all but what the handlers compare (the
// artifact, the latest image): there is one of each per tenant.

// cacheTransform is the cache's default transform: managedFields stripped,
// KCLRuns, sources and ImagePolicies trimmed.
func cacheTransform() toolscache.TransformFunc {
	strip := cache.TransformStripManagedFields()
	return func(obj any) (any, error) {
		obj, err := strip(obj)
		if err != nil {
			return obj, err
		}
		switch o := obj.(type) {
		case *kclv1.KCLRun:
			trimKCLRun(o)
		case *sourcev1.GitRepository:
			o.Spec, o.Status = sourcev1.GitRepositorySpec{}, sourcev1.GitRepositoryStatus{Artifact: o.Status.Artifact}
			trimMeta(&o.ObjectMeta)
		case *sourcev1.OCIRepository:
			o.Spec, o.Status = sourcev1.OCIRepositorySpec{}, sourcev1.OCIRepositoryStatus{Artifact: o.Status.Artifact}
			trimMeta(&o.ObjectMeta)
		case *sourcev1.Bucket:
			o.Spec, o.Status = sourcev1.BucketSpec{}, sourcev1.BucketStatus{Artifact: o.Status.Artifact}
			trimMeta(&o.ObjectMeta)
		case *sourcev1.ExternalArtifact:
			o.Spec, o.Status = sourcev1.ExternalArtifactSpec{}, sourcev1.ExternalArtifactStatus{Artifact: o.Status.Artifact}
			trimMeta(&o.ObjectMeta)
		case *imagev1.ImagePolicy:
			o.Spec, o.Status = imagev1.ImagePolicySpec{}, imagev1.ImagePolicyStatus{LatestRef: o.Status.LatestRef}
			trimMeta(&o.ObjectMeta)
		}
		return obj, nil
	}
}

// trimKCLRun drops the status fields the watcher never reads: the
// inventory, the history, the resolved images and packages. Conditions,
// revisions and imagePolicies stay (schedule, dependencies, policy index).
func trimKCLRun(run *kclv1.KCLRun) {
	run.Status.Inventory = nil
	run.Status.History = nil
	run.Status.Images = nil
	run.Status.Packages = nil
}

// trimMeta drops the labels and annotations of an object the watcher only
// identifies (name, namespace, UID, resourceVersion stay).
func trimMeta(m *metav1.ObjectMeta) {
	m.Labels, m.Annotations, m.OwnerReferences, m.Finalizers = nil, nil, nil, nil
}
