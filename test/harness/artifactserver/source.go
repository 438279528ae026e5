package artifactserver

import (
	"context"
	"fmt"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewSource returns an unsaved Flux source of kind (GitRepository, OCIRepository, Bucket or
// ExternalArtifact) with the smallest valid spec. No source-controller runs in the tests:
// the spec only has to pass validation, the status is what consumers read.
func NewSource(kind, namespace, name string) (client.Object, error) {
	om := metav1.ObjectMeta{Namespace: namespace, Name: name}
	interval := metav1.Duration{Duration: time.Hour}
	switch kind {
	case sourcev1.GitRepositoryKind:
		return &sourcev1.GitRepository{ObjectMeta: om, Spec: sourcev1.GitRepositorySpec{
			URL: "https://git.invalid/" + namespace + "/" + name, Interval: interval,
		}}, nil
	case sourcev1.OCIRepositoryKind:
		return &sourcev1.OCIRepository{ObjectMeta: om, Spec: sourcev1.OCIRepositorySpec{
			URL: "oci://registry.invalid/" + namespace + "/" + name, Interval: interval,
		}}, nil
	case sourcev1.BucketKind:
		return &sourcev1.Bucket{ObjectMeta: om, Spec: sourcev1.BucketSpec{
			BucketName: name, Endpoint: "bucket.invalid", Interval: interval,
		}}, nil
	case sourcev1.ExternalArtifactKind:
		return &sourcev1.ExternalArtifact{ObjectMeta: om}, nil
	default:
		return nil, fmt.Errorf("unsupported source kind %q", kind)
	}
}

// CreateSource creates a Flux source of kind and, when artifact is not nil, sets its
// status.artifact with a Ready=True condition, as source-controller would after a fetch.
func CreateSource(ctx context.Context, c client.Client, kind, namespace, name string, artifact *meta.Artifact) (client.Object, error) {
	obj, err := NewSource(kind, namespace, name)
	if err != nil {
		return nil, err
	}
	if err := c.Create(ctx, obj); err != nil {
		return nil, fmt.Errorf("creating %s %s/%s: %w", kind, namespace, name, err)
	}
	if artifact == nil {
		return obj, nil
	}
	return obj, SetArtifact(ctx, c, obj, artifact)
}

// SetArtifact writes artifact into the status of a Flux source (a *sourcev1.GitRepository,
// OCIRepository, Bucket or ExternalArtifact) with Ready=True for the current generation,
// retrying on conflicts with fresh reads.
func SetArtifact(ctx context.Context, c client.Client, obj client.Object, artifact *meta.Artifact) error {
	return setStatus(ctx, c, obj, func(st *sourceStatus) {
		*st.artifact = artifact.DeepCopy()
		apimeta.SetStatusCondition(st.conditions, metav1.Condition{
			Type:               meta.ReadyCondition,
			Status:             metav1.ConditionTrue,
			Reason:             meta.SucceededReason,
			Message:            "stored artifact for revision '" + artifact.Revision + "'",
			ObservedGeneration: obj.GetGeneration(),
		})
	})
}

// SetNotReady marks a source Ready=False (reason and message as given), keeping its artifact,
// as source-controller does when a fetch fails.
func SetNotReady(ctx context.Context, c client.Client, obj client.Object, reason, message string) error {
	return setStatus(ctx, c, obj, func(st *sourceStatus) {
		apimeta.SetStatusCondition(st.conditions, metav1.Condition{
			Type:               meta.ReadyCondition,
			Status:             metav1.ConditionFalse,
			Reason:             reason,
			Message:            message,
			ObservedGeneration: obj.GetGeneration(),
		})
	})
}

// sourceStatus points at the status fields shared by all source kinds.
type sourceStatus struct {
	artifact   **meta.Artifact
	conditions *[]metav1.Condition
	observed   *int64
}

func statusOf(obj client.Object) (sourceStatus, error) {
	switch o := obj.(type) {
	case *sourcev1.GitRepository:
		return sourceStatus{&o.Status.Artifact, &o.Status.Conditions, &o.Status.ObservedGeneration}, nil
	case *sourcev1.OCIRepository:
		return sourceStatus{&o.Status.Artifact, &o.Status.Conditions, &o.Status.ObservedGeneration}, nil
	case *sourcev1.Bucket:
		return sourceStatus{&o.Status.Artifact, &o.Status.Conditions, &o.Status.ObservedGeneration}, nil
	case *sourcev1.ExternalArtifact:
		return sourceStatus{&o.Status.Artifact, &o.Status.Conditions, nil}, nil
	default:
		return sourceStatus{}, fmt.Errorf("unsupported source object %T", obj)
	}
}

func setStatus(ctx context.Context, c client.Client, obj client.Object, mutate func(*sourceStatus)) error {
	const attempts = 10
	var err error
	for range attempts {
		var st sourceStatus
		if st, err = statusOf(obj); err != nil {
			return err
		}
		mutate(&st)
		if st.observed != nil {
			*st.observed = obj.GetGeneration()
		}
		if err = c.Status().Update(ctx, obj); err == nil {
			return nil
		}
		if !apierrors.IsConflict(err) {
			break
		}
		if err = c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			break
		}
	}
	return fmt.Errorf("updating status of %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
}
