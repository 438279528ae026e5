package install_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// fieldOwner is the server-side apply field manager of the tests' writes.
const fieldOwner = "install-test"

// dryRunApply server-side applies every object in dry-run mode: the apiserver validates and
// admits each one (schemas, CRD validation, RBAC escalation checks) and stores nothing.
func dryRunApply(ctx context.Context, objs []*unstructured.Unstructured) error {
	for _, o := range objs {
		if err := apply(ctx, o, client.DryRunAll); err != nil {
			return err
		}
	}
	return nil
}

func apply(ctx context.Context, o *unstructured.Unstructured, opts ...client.PatchOption) error {
	u := o.DeepCopy()
	u.SetResourceVersion("")
	opts = append(opts, client.FieldOwner(fieldOwner), client.ForceOwnership)
	if err := env.Client.Patch(ctx, u, client.Apply, opts...); err != nil {
		return fmt.Errorf("applying %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return nil
}
