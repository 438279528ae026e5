package applier

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/nats-io/nats.go"
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
// cluster). A no-op reconcile neither compiles nor writes. With
// spec.driftDetection.mode disabled neither drift nor the interval asks for a
// full check.
func (s *Service) isNoOp(ctx context.Context, obj *v1alpha1.KCLRun, req reconcilerequest.Request, revision, fp string) bool {
	watched := watchesDrift(obj)
	switch {
	case req.Reason == reconcilerequest.ReasonDriftDetected && watched:
		return false
	case reconcileRequested(obj):
		// As `flux reconcile` asks: the drift watcher may have missed an
		// edit (made while no applier ran), so dry-run and apply again.
		return false
	case req.Reason == reconcilerequest.ReasonIntervalElapsed && watched && (s.cfg.FullCheckOnInterval || s.drift == nil || obj.Spec.KubeConfig != nil):
		// A remote cluster's watcher starts again only with an apply: after a
		// restart, or while the remote cluster was unreachable, the interval
		// is what notices its drift.
		return false
	}
	if !s.inputsApplied(ctx, obj, revision, fp) {
		return false
	}
	// After a restart the drift watcher knows nothing yet: show it the kinds
	// this KCLRun applied so that edits to them are still caught.
	if s.drift != nil && obj.Spec.KubeConfig == nil && watched {
		if local, err := s.clusters.localCluster(); err == nil {
			s.drift.Watch(local.resourcesOf(obj.Status.Inventory)...)
		}
	}
	return true
}

// inputsApplied reports whether the last successful apply had exactly these inputs.
func (s *Service) inputsApplied(ctx context.Context, obj *v1alpha1.KCLRun, revision, fp string) bool {
	switch {
	case !conditions.IsReady(obj) || obj.Status.ObservedGeneration != obj.Generation:
		return false
	case obj.Status.LastAppliedRevision != revision || obj.Status.Inventory == nil:
		return false
	}
	stored, err := s.fingerprints.get(ctx, lease.Key(obj.Namespace, obj.Name))
	return err == nil && stored == appliedRecord(fp, latestDigest(obj))
}

// appliedRecord is what the bucket keeps for a successful apply: the inputs'
// fingerprint and the digest of the objects they compiled to, as that apply
// wrote it to status.history. A bucket write can fail or be skipped
// (fingerprintPause) and leave an older record behind; inputs going A, B, A
// on one revision would then match A's record while the cluster holds B's
// objects. The status is the authoritative record of what was applied last,
// whichever replica applied it, and every apply outcome after a compile
// upserts its digest there, so an older record no longer matches
// status.history's latest digest. That costs the no-op path no read: the
// KCLRun is read anyway. Dropping the record before an apply alone would not
// do: the drop fails the same way, and the replica taking the next reconcile
// cannot know; invalidateFingerprint covers a failing status write.
func appliedRecord(fp, digest string) string {
	return fp + " " + digest
}

// latestDigest is the digest of the objects the last compiling reconcile
// applied (or tried to), from status.history.
func latestDigest(obj *v1alpha1.KCLRun) string {
	if latest := obj.Status.History.Latest(); latest != nil {
		return latest.Digest
	}
	return ""
}

// storeFingerprint records a successful apply of digest's objects from the
// inputs fp, after its status write.
func (s *Service) storeFingerprint(ctx context.Context, obj *v1alpha1.KCLRun, fp, digest string) {
	if err := s.fingerprints.put(ctx, lease.Key(obj.Namespace, obj.Name), appliedRecord(fp, digest)); err != nil {
		// Only costs a recompile next time: status.history no longer matches the older record.
		s.log.V(1).Info("storing the applied fingerprint failed", "kclrun", obj.Namespace+"/"+obj.Name, "error", err.Error())
	}
}

// invalidateFingerprint makes sure the stored record cannot match once other
// objects than status.history's latest are applied, even if the status write
// after the apply fails: it drops the record, or, when the bucket does not
// take that, writes status.history's new digest before the apply (which then
// waits for a status write the apiserver takes). Applying the objects the
// latest snapshot already names leaves any record true, and no record matches
// an empty history (a first sync).
func (s *Service) invalidateFingerprint(ctx context.Context, status *statusWriter, obj *v1alpha1.KCLRun, digest string) error {
	if latest := latestDigest(obj); latest == "" || latest == digest {
		return nil
	}
	err := s.fingerprints.drop(ctx, lease.Key(obj.Namespace, obj.Name))
	if err == nil {
		return nil
	}
	s.log.V(1).Info("dropping the applied fingerprint before an apply failed, recording the digest first", "kclrun", obj.Namespace+"/"+obj.Name, "error", err.Error())
	recorded := obj.DeepCopy()
	recorded.Status.History.Upsert(digest, time.Now(), 0, reasonOf(obj), map[string]string{"revision": obj.Status.LastAttemptedRevision})
	if err := status.record(ctx, recorded); err != nil {
		return fmt.Errorf("recording the digest before the apply: %w", err)
	}
	obj.Status.History = recorded.Status.History
	return nil
}

func (s *Service) dropFingerprint(ctx context.Context, key types.NamespacedName) {
	if err := s.fingerprints.drop(ctx, lease.Key(key.Namespace, key.Name)); err != nil {
		s.log.V(1).Info("dropping the applied fingerprint failed", "kclrun", key.String(), "error", err.Error())
	}
}

// fingerprintPause is how long fingerprint writes are skipped once one found the bucket
// unable to take it: its stream without a leader (a JetStream cluster electing one after
// regaining its quorum takes up to nats-server's election timeout, seconds) or without a
// quorum. A write only fills a cache, yet each one waited for the bucket (nats.go retries a
// publish nobody answers for half a second, an unacknowledged one until its timeout), so a
// leaderless bucket cost every reconcile most of a second and held up the whole recovery.
const fingerprintPause = time.Second

// errFingerprintsPaused reports a write skipped within fingerprintPause of a failed one.
var errFingerprintsPaused = errors.New("fingerprint bucket unavailable a moment ago, write skipped")

// fingerprintBucket is the bucket of applied fingerprints, its writes paused for
// fingerprintPause after one found it unavailable.
type fingerprintBucket struct {
	kv  jetstream.KeyValue
	now func() time.Time
	// beforeWrite is Hooks.FingerprintWrite.
	beforeWrite func(key string) error
	// pausedUntil is a time in Unix nanoseconds; writes before it are skipped.
	pausedUntil atomic.Int64
}

func newFingerprintBucket(kv jetstream.KeyValue) *fingerprintBucket {
	return &fingerprintBucket{kv: kv, now: time.Now}
}

func (b *fingerprintBucket) get(ctx context.Context, key string) (string, error) {
	entry, err := b.kv.Get(ctx, key)
	if err != nil {
		return "", err
	}
	return string(entry.Value()), nil
}

func (b *fingerprintBucket) put(ctx context.Context, key, fp string) error {
	return b.write(key, func() error {
		_, err := b.kv.PutString(ctx, key, fp)
		return err
	})
}

func (b *fingerprintBucket) drop(ctx context.Context, key string) error {
	return b.write(key, func() error {
		if err := b.kv.Delete(ctx, key); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			return err
		}
		return nil
	})
}

func (b *fingerprintBucket) write(key string, do func() error) error {
	if b.now().UnixNano() < b.pausedUntil.Load() {
		return errFingerprintsPaused
	}
	if b.beforeWrite != nil {
		if err := b.beforeWrite(key); err != nil {
			return err
		}
	}
	err := do()
	if bucketUnavailable(err) {
		b.pausedUntil.Store(b.now().Add(fingerprintPause).UnixNano())
	}
	return err
}

// bucketUnavailable reports a write the bucket could not take at all: no stream leader answered
// (nats.go's retries included), or none acknowledged in time.
func bucketUnavailable(err error) bool {
	return errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
}

// reconcileRequested reports a reconcile.fluxcd.io/requestedAt value that no
// reconcile has handled yet.
func reconcileRequested(obj *v1alpha1.KCLRun) bool {
	v, ok := meta.ReconcileAnnotationValue(obj.GetAnnotations())
	return ok && v != obj.Status.LastHandledReconcileAt
}
