package applier

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/nats-io/nats.go/jetstream"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/lease"
)

// fingerprint digests every input of a compile and apply: the KCLRun (uid and
// generation cover the spec), the artifact, the arguments and the image
// policies. Equal fingerprints mean the same objects would be applied.
func fingerprint(obj *v1alpha1.KCLRun, artifact *meta.Artifact, argsDigest string, policies []workerclient.ImagePolicy) string {
	h := sha256.New()
	fmt.Fprintf(h, "uid=%s\ngeneration=%d\nrevision=%s\ndigest=%s\nargs=%s\n",
		obj.UID, obj.Generation, artifact.Revision, artifact.Digest, argsDigest)
	for _, p := range policies {
		fmt.Fprintf(h, "policy=%s/%s found=%t", p.Namespace, p.Name, p.Found)
		if r := p.LatestRef; r != nil {
			fmt.Fprintf(h, " ref=%s:%s@%s", r.Name, r.Tag, r.Digest)
		}
		fmt.Fprintln(h)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// isNoOp reports whether the last successful apply had exactly these inputs
// and nothing since asks for a full check (drift, a reconcile.fluxcd.io/requestedAt
// not handled yet, or the interval when FullCheckOnInterval, without drift
// detection, which then is the only thing that undoes edits, or for a remote
// cluster). A no-op reconcile neither compiles nor writes.
func (s *Service) isNoOp(ctx context.Context, obj *v1alpha1.KCLRun, req reconcilerequest.Request, revision, fp string) bool {
	switch {
	case req.Reason == ReasonDriftDetected:
		return false
	case reconcileRequested(obj):
		// As `flux reconcile` asks: the drift watcher may have missed an
		// edit (made while no applier ran), so dry-run and apply again.
		return false
	case req.Reason == reconcilerequest.ReasonIntervalElapsed && (s.cfg.FullCheckOnInterval || s.drift == nil || obj.Spec.KubeConfig != nil):
		// A remote cluster's watcher starts again only with an apply: after a
		// restart, or while the remote cluster was unreachable, the interval
		// is what notices its drift.
		return false
	case !conditions.IsReady(obj) || obj.Status.ObservedGeneration != obj.Generation:
		return false
	case obj.Status.LastAppliedRevision != revision || obj.Status.Inventory == nil:
		return false
	}
	entry, err := s.fingerprints.Get(ctx, lease.Key(obj.Namespace, obj.Name))
	if err != nil || string(entry.Value()) != fp {
		return false
	}
	// After a restart the drift watcher knows nothing yet: show it the kinds
	// this KCLRun applied so that edits to them are still caught.
	if s.drift != nil && obj.Spec.KubeConfig == nil {
		if local, err := s.clusters.localCluster(); err == nil {
			s.drift.Watch(local.resourcesOf(obj.Status.Inventory)...)
		}
	}
	return true
}

func (s *Service) storeFingerprint(ctx context.Context, obj *v1alpha1.KCLRun, fp string) {
	if _, err := s.fingerprints.PutString(ctx, lease.Key(obj.Namespace, obj.Name), fp); err != nil {
		// Only costs a recompile next time.
		s.log.V(1).Info("storing the applied fingerprint failed", "kclrun", obj.Namespace+"/"+obj.Name, "error", err.Error())
	}
}

func (s *Service) dropFingerprint(ctx context.Context, key types.NamespacedName) {
	if err := s.fingerprints.Delete(ctx, lease.Key(key.Namespace, key.Name)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		s.log.V(1).Info("dropping the applied fingerprint failed", "kclrun", key.String(), "error", err.Error())
	}
}

// reconcileRequested reports a reconcile.fluxcd.io/requestedAt value that no
// reconcile has handled yet.
func reconcileRequested(obj *v1alpha1.KCLRun) bool {
	v, ok := meta.ReconcileAnnotationValue(obj.GetAnnotations())
	return ok && v != obj.Status.LastHandledReconcileAt
}
