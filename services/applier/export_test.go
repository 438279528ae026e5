package applier

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// LockDownKubeConfigIdentity is --default-kubeconfig-service-account, for tests.
var LockDownKubeConfigIdentity = lockDownKubeConfigIdentity

// WorkloadIdentityConfig is the client config of a kubeConfig.configMapRef, for tests.
func WorkloadIdentityConfig(ctx context.Context, reader client.Client, obj *v1alpha1.KCLRun, cm *corev1.ConfigMap) (*rest.Config, error) {
	return workloadIdentityConfig(ctx, reader, nil, obj, cm)
}

// GoverningRollout answers, as a reconcile of a request would, which
// ImageRollout governs a policy ("namespace/name").
type GoverningRollout func(ctx context.Context, reader client.Reader, req reconcilerequest.Request, policy string) (*v1alpha1.ImageRollout, error)

// StartImageRollouts starts the applier's ImageRollout cache on ctx, for
// tests: cancelling ctx stops its informer, and the cache keeps what it held.
func StartImageRollouts(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme) (GoverningRollout, error) {
	r, err := startImageRollouts(ctx, cfg, scheme)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, reader client.Reader, req reconcilerequest.Request, policy string) (*v1alpha1.ImageRollout, error) {
		return r.governing(forTriggeringRollout(ctx, req), reader, policy)
	}, nil
}
