package watcher

import (
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// The watcher keeps every KCLRun, source and ImagePolicy in its caches, so
// their size grows with the KCLRuns (about 15 KiB each at 1,000, most of it
// managedFields and the KCLRun's inventory). What it never reads is dropped
// before an object is stored: managedFields on every kind, as Flux's
// controllers do, and the parts of a KCLRun's status only the applier uses.

// cacheTransform is the cache's default transform: managedFields stripped,
// and KCLRuns trimmed by trimKCLRun.
func cacheTransform() toolscache.TransformFunc {
	strip := cache.TransformStripManagedFields()
	return func(obj any) (any, error) {
		obj, err := strip(obj)
		if err != nil {
			return obj, err
		}
		if run, ok := obj.(*kclv1.KCLRun); ok {
			trimKCLRun(run)
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
