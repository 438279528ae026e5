// Package imagepolicy plays image-reflector-controller in tests: it creates Flux ImagePolicy
// (image.toolkit.fluxcd.io/v1) objects and sets the status.latestRef that $imagepolicy
// markers follow. It needs an apiserver with the ImagePolicy CRD (test/harness/kube).
//
//	p, err := imagepolicy.Create(ctx, c, "apps", "web", imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "1.0.0"})
//	err = imagepolicy.SetLatest(ctx, c, p, imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "1.1.0"})
package imagepolicy

import (
	"context"
	"fmt"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Create makes an ImagePolicy with a semver policy on an ImageRepository of the same name
// and, when latest has a name, sets its status.latestRef.
func Create(ctx context.Context, c client.Client, namespace, name string, latest imagev1.ImageRef) (*imagev1.ImagePolicy, error) {
	p := &imagev1.ImagePolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: imagev1.ImagePolicySpec{
			ImageRepositoryRef: meta.NamespacedObjectReference{Name: name},
			Policy:             imagev1.ImagePolicyChoice{SemVer: &imagev1.SemVerPolicy{Range: ">=0.0.0"}},
		},
	}
	if err := c.Create(ctx, p); err != nil {
		return nil, fmt.Errorf("creating ImagePolicy %s/%s: %w", namespace, name, err)
	}
	if latest.Name == "" {
		return p, nil
	}
	return p, SetLatest(ctx, c, p, latest)
}

// SetLatest sets status.latestRef (keeping the previous one in status.observedPreviousRef)
// with Ready=True, as image-reflector-controller does when a newer image is selected.
// It retries on conflicts with fresh reads.
func SetLatest(ctx context.Context, c client.Client, p *imagev1.ImagePolicy, latest imagev1.ImageRef) error {
	const attempts = 10
	var err error
	for range attempts {
		if p.Status.LatestRef != nil && *p.Status.LatestRef != latest {
			p.Status.ObservedPreviousRef = p.Status.LatestRef.DeepCopy()
		}
		ref := latest
		p.Status.LatestRef = &ref
		p.Status.ObservedGeneration = p.Generation
		apimeta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{
			Type:               meta.ReadyCondition,
			Status:             metav1.ConditionTrue,
			Reason:             meta.SucceededReason,
			Message:            fmt.Sprintf("Latest image tag for %s resolved to %s", latest.Name, latest.Tag),
			ObservedGeneration: p.Generation,
		})
		if err = c.Status().Update(ctx, p); err == nil {
			return nil
		}
		if !apierrors.IsConflict(err) {
			break
		}
		if err = c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
			break
		}
	}
	return fmt.Errorf("setting latest image of ImagePolicy %s/%s: %w", p.Namespace, p.Name, err)
}
