// Package v1alpha1 holds the KCLRun and ImageRollout APIs: krm.kcl.dev.fluxcd/v1alpha1.
//
// # ImageRollout approvals
//
// A stage with approval: true waits, once the stage before it passed, until
// the ImageRollout carries the annotation ApprovalAnnotation(stage)
// ("approval.krm.kcl.dev.fluxcd/<stage>") whose value is an Approval as JSON:
//
//	approval.krm.kcl.dev.fluxcd/early: '{"target":"ghcr.io/org/web:1.4.0","by":"alice@example.com","at":"2026-12-04T20:00:00Z"}'
//
// target must equal status.target as RolloutImage.String spells it: an
// approval is for one election, so a newer election waits for a new one, and
// an approval given before the stage awaits it counts when it does. by names
// who approved; the Approved event and status.stages[].approvedBy repeat it.
// `flux-kcl-controller approve imagerollout NAME [--stage S]` writes it (the
// stage in AwaitingApproval when --stage is not given); anyone who may patch
// the ImageRollout may approve, so grant that verb to the approvers only.
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
