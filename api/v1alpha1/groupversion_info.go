// Package v1alpha1 holds the KCLRun API: krm.kcl.dev.fluxcd/v1alpha1.
// +kubebuilder:object:generate=true
// +groupName=krm.kcl.dev.fluxcd
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of KCLRun.
	GroupVersion = schema.GroupVersion{Group: "krm.kcl.dev.fluxcd", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this group with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this group to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
