// Package objectprep changes compiled objects as the applier does between the compiler's
// output and the server-side apply: namespaces (spec.targetNamespace), spec.commonMetadata
// and the owner labels. The applier and the CLI's build/diff --kclrun both call it, so
// what the CLI renders is what the controller applies.
package objectprep

import (
	"fmt"

	"github.com/fluxcd/pkg/ssa"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Prepare normalises the objects' namespaces, then labels them (see Normalize, Label).
func Prepare(run *v1alpha1.KCLRun, mapper apimeta.RESTMapper, objects []*unstructured.Unstructured) error {
	if err := Normalize(run, mapper, objects); err != nil {
		return err
	}
	Label(run, objects)
	return nil
}

// Label sets spec.commonMetadata and the owner labels naming the KCLRun, the
// labels the inventory and the prune select by.
func Label(run *v1alpha1.KCLRun, objects []*unstructured.Unstructured) {
	Common(run, objects)
	// SetOwnerLabels reads only the owner's group: no client is needed.
	ssa.NewResourceManager(nil, nil, ssa.Owner{Group: v1alpha1.GroupVersion.Group}).
		SetOwnerLabels(objects, run.Name, run.Namespace)
}

// Common sets spec.commonMetadata alone: what a KCLRun publishes as an
// ExternalArtifact carries no owner labels, kustomize-controller adds its own.
func Common(run *v1alpha1.KCLRun, objects []*unstructured.Unstructured) {
	if cm := run.Spec.CommonMetadata; cm != nil {
		ssautils.SetCommonMetadata(objects, cm.Labels, cm.Annotations)
	}
}

// Normalize puts namespaced objects in a namespace and takes it off
// cluster-scoped ones; the REST mapper tells which is which (the scope a CRD
// of the same apply declares, for its kinds). Without spec.targetNamespace,
// objects that name no namespace go to the KCLRun's; with it, every
// namespaced object goes there, as kustomize's namespace transformer does for
// a Kustomization (see confine).
func Normalize(run *v1alpha1.KCLRun, mapper apimeta.RESTMapper, objects []*unstructured.Unstructured) error {
	target := run.GetTargetNamespace()
	override := run.Spec.TargetNamespace != ""
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
		case override, o.GetNamespace() == "":
			o.SetNamespace(target)
		}
		if override {
			if err := confine(o, target); err != nil {
				return err
			}
		}
	}
	return nil
}

// confine points the namespace references that kustomize's namespace
// transformer rewrites at the target namespace: a Namespace object becomes
// the target itself, (Cluster)RoleBinding subjects named "default" (its
// default subject mode), and the services of APIServices and of CRD
// conversion webhooks, where the object has one.
func confine(o *unstructured.Unstructured, target string) error {
	gvk := o.GroupVersionKind()
	switch {
	case gvk.Group == "" && gvk.Kind == "Namespace":
		o.SetName(target)
	case gvk.Group == rbacv1.GroupName && (gvk.Kind == "RoleBinding" || gvk.Kind == "ClusterRoleBinding"):
		subjects, found, err := unstructured.NestedSlice(o.Object, "subjects")
		if err != nil || !found {
			return err
		}
		for _, s := range subjects {
			if subject, ok := s.(map[string]any); ok && subject["name"] == "default" {
				subject["namespace"] = target
			}
		}
		return unstructured.SetNestedSlice(o.Object, subjects, "subjects")
	case gvk.Group == "apiregistration.k8s.io" && gvk.Kind == "APIService":
		return setIfPresent(o, target, "spec", "service")
	case gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition":
		return setIfPresent(o, target, "spec", "conversion", "webhook", "clientConfig", "service")
	}
	return nil
}

// setIfPresent sets the namespace of the map at path, when there is one.
func setIfPresent(o *unstructured.Unstructured, namespace string, path ...string) error {
	if _, found, err := unstructured.NestedMap(o.Object, path...); err != nil || !found {
		return err
	}
	return unstructured.SetNestedField(o.Object, namespace, append(path, "namespace")...)
}
