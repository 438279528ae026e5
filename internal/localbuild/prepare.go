package localbuild

import (
	"fmt"

	"github.com/fluxcd/pkg/ssa"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Prepare changes compiled objects as the applier does before its server-side apply: the
// KCLRun's target namespace on namespaced objects without one (cluster-scoped ones lose
// theirs), spec.commonMetadata, and the owner labels naming the KCLRun. mapper tells
// which kinds are namespaced (CRDs among the objects say it for their own kinds).
func Prepare(run *v1alpha1.KCLRun, mapper apimeta.RESTMapper) func([]*unstructured.Unstructured) error {
	return func(objects []*unstructured.Unstructured) error {
		if err := setNamespaces(run.GetTargetNamespace(), mapper, objects); err != nil {
			return err
		}
		if cm := run.Spec.CommonMetadata; cm != nil {
			ssautils.SetCommonMetadata(objects, cm.Labels, cm.Annotations)
		}
		owner := ssa.Owner{Group: v1alpha1.GroupVersion.Group}
		ssa.NewResourceManager(nil, nil, owner).SetOwnerLabels(objects, run.Name, run.Namespace)
		return nil
	}
}

func setNamespaces(target string, mapper apimeta.RESTMapper, objects []*unstructured.Unstructured) error {
	crdScopes := map[schema.GroupKind]bool{}
	for _, o := range objects {
		if o.GetKind() == "CustomResourceDefinition" {
			group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			scope, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
			crdScopes[schema.GroupKind{Group: group, Kind: kind}] = scope == "Namespaced"
		}
	}
	for _, o := range objects {
		gvk := o.GroupVersionKind()
		namespaced, known := crdScopes[gvk.GroupKind()]
		if !known {
			mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				if apimeta.IsNoMatchError(err) {
					return fmt.Errorf("%s/%s: no API for %s in the target cluster", gvk.Kind, o.GetName(), gvk.GroupVersion())
				}
				return fmt.Errorf("mapping %s: %w", gvk, err)
			}
			namespaced = mapping.Scope.Name() == apimeta.RESTScopeNameNamespace
		}
		switch {
		case !namespaced:
			o.SetNamespace("")
		case o.GetNamespace() == "":
			o.SetNamespace(target)
		}
	}
	return nil
}
