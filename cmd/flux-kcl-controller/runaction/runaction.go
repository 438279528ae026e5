// Package runaction changes what the controller does with a KCLRun or an ImageRollout, as the
// flux CLI does for a Kustomization: request a reconcile (of the run, or of its source first),
// suspend or resume, and approve a rollout's stage. `flux-kcl-controller reconcile|suspend|
// resume|approve` and the web view's buttons make these requests through this package only,
// with the caller's own credentials, so that the annotations they write, their values and who
// is recorded as approving cannot differ between the two.
package runaction

import (
	"context"
	"fmt"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// KCLRunKind is the KCLRun's GroupVersionKind, for RequestReconcile.
var KCLRunKind = v1alpha1.GroupVersion.WithKind(v1alpha1.KCLRunKind)

// RequestReconcile sets reconcile.fluxcd.io/requestedAt to now on the object key of kind
// gvk, as flux reconcile does, and returns the value set: the controller copies it to
// status.lastHandledReconcileAt once it has handled the request.
func RequestReconcile(ctx context.Context, c client.Client, key types.NamespacedName, gvk schema.GroupVersionKind) (string, error) {
	ts := time.Now().Format(time.RFC3339Nano)
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(gvk)
		if err := c.Get(ctx, key, obj); err != nil {
			return err
		}
		patch := client.MergeFrom(obj.DeepCopy())
		annotations := obj.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[meta.ReconcileRequestAnnotation] = ts
		obj.SetAnnotations(annotations)
		return c.Patch(ctx, obj, patch)
	})
	return ts, err
}

// Source is the object and kind of the run's source, for a reconcile "with source".
func Source(run *v1alpha1.KCLRun) (types.NamespacedName, schema.GroupVersionKind, error) {
	ref := run.Spec.SourceRef
	apiVersion := ref.APIVersion
	if apiVersion == "" {
		// Flux's source kinds a KCLRun may reference are all served at v1.
		apiVersion = "source.toolkit.fluxcd.io/v1"
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return types.NamespacedName{}, schema.GroupVersionKind{}, fmt.Errorf("source %s/%s: %w", ref.Kind, ref.Name, err)
	}
	return types.NamespacedName{Namespace: run.SourceNamespace(), Name: ref.Name}, gv.WithKind(ref.Kind), nil
}

// SetSuspend patches spec.suspend of a KCLRun or an ImageRollout (updated in place).
// Resuming also requests a reconcile and returns its value, so that a caller waiting for
// the outcome waits for exactly this request.
func SetSuspend(ctx context.Context, c client.Client, obj client.Object, suspend bool) (string, error) {
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	switch o := obj.(type) {
	case *v1alpha1.KCLRun:
		o.Spec.Suspend = suspend
	case *v1alpha1.ImageRollout:
		o.Spec.Suspend = suspend
	default:
		return "", fmt.Errorf("%T has no spec.suspend", obj)
	}
	requested := ""
	if !suspend {
		requested = time.Now().Format(time.RFC3339Nano)
		annotations := obj.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[meta.ReconcileRequestAnnotation] = requested
		obj.SetAnnotations(annotations)
	}
	return requested, c.Patch(ctx, obj, patch)
}
