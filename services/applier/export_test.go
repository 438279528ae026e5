package applier

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// LockDownKubeConfigIdentity is --default-kubeconfig-service-account, for tests.
var LockDownKubeConfigIdentity = lockDownKubeConfigIdentity

// WorkloadIdentityConfig is the client config of a kubeConfig.configMapRef, for tests.
func WorkloadIdentityConfig(ctx context.Context, reader client.Client, obj *v1alpha1.KCLRun, cm *corev1.ConfigMap) (*rest.Config, error) {
	return workloadIdentityConfig(ctx, reader, nil, obj, cm)
}
