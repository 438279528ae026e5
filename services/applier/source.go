package applier

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// accessDeniedError is a reference the ACL refuses: terminal until the spec changes.
type accessDeniedError struct{ msg string }

func (e *accessDeniedError) Error() string { return e.msg }

// sourceNotReadyError is a missing source or one without an artifact yet.
type sourceNotReadyError struct{ msg string }

func (e *sourceNotReadyError) Error() string { return e.msg }

// sourceObject is a Flux source kind.
type sourceObject interface {
	client.Object
	GetArtifact() *meta.Artifact
}

// sourceArtifact returns the artifact of the KCLRun's source.
func (s *Service) sourceArtifact(ctx context.Context, obj *v1alpha1.KCLRun) (*meta.Artifact, error) {
	ref := obj.Spec.SourceRef
	ns := obj.SourceNamespace()
	if s.cfg.NoCrossNamespaceRefs && ns != obj.Namespace {
		return nil, &accessDeniedError{fmt.Sprintf("can't access '%s/%s', cross-namespace references have been blocked", ref.Kind, types.NamespacedName{Namespace: ns, Name: ref.Name})}
	}
	var newSource func() sourceObject
	switch ref.Kind {
	case sourcev1.GitRepositoryKind:
		newSource = func() sourceObject { return &sourcev1.GitRepository{} }
	case sourcev1.OCIRepositoryKind:
		newSource = func() sourceObject { return &sourcev1.OCIRepository{} }
	case sourcev1.BucketKind:
		newSource = func() sourceObject { return &sourcev1.Bucket{} }
	case sourcev1.ExternalArtifactKind:
		newSource = func() sourceObject { return &sourcev1.ExternalArtifact{} }
	default:
		return nil, &accessDeniedError{fmt.Sprintf("source kind %q is not supported", ref.Kind)}
	}
	name := types.NamespacedName{Namespace: ns, Name: ref.Name}
	// The watcher's cache keeps only the artifact: one without an artifact is
	// read again for its Ready message.
	if src := newSource(); cachedGet(ctx, name, src) && src.GetArtifact() != nil {
		return src.GetArtifact(), nil
	}
	src := newSource()
	if err := s.client.Get(ctx, name, src); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &sourceNotReadyError{fmt.Sprintf("Source '%s/%s' not found", ref.Kind, name)}
		}
		return nil, fmt.Errorf("reading source %s/%s: %w", ref.Kind, name, err)
	}
	artifact := src.GetArtifact()
	if artifact == nil {
		msg := fmt.Sprintf("Source '%s/%s' is not ready, artifact not found", ref.Kind, name)
		if getter, ok := src.(conditions.Getter); ok {
			if m := conditions.GetMessage(getter, meta.ReadyCondition); m != "" && conditions.IsFalse(getter, meta.ReadyCondition) {
				msg += ": " + m
			}
		}
		return nil, &sourceNotReadyError{msg}
	}
	return artifact, nil
}
