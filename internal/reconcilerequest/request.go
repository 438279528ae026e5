// Package reconcilerequest is the contract between the watcher, which publishes
// reconcile requests for KCLRuns on NATS JetStream, and the applier, which
// consumes them. See README.md for the subject scheme and the message schema.
package reconcilerequest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// SchemaVersion is the version of the message schema this package writes.
// Readers accept any message whose version they know; a new field that old
// readers may ignore does not bump it, a change of meaning does.
const SchemaVersion = 1

// Reason says why a reconcile request was published.
type Reason string

// The reasons the watcher publishes a request for.
const (
	// ReasonCreated: the KCLRun was seen for the first time (created, or the watcher started).
	ReasonCreated Reason = "Created"
	// ReasonGenerationChanged: the KCLRun's spec changed (metadata.generation moved).
	ReasonGenerationChanged Reason = "GenerationChanged"
	// ReasonDeleting: the KCLRun got a deletionTimestamp; its finalizer must run.
	ReasonDeleting Reason = "Deleting"
	// ReasonRequested: the reconcile.fluxcd.io/requestedAt annotation changed.
	ReasonRequested Reason = "Requested"
	// ReasonSourceChanged: the referenced source's artifact revision or digest changed.
	ReasonSourceChanged Reason = "SourceChanged"
	// ReasonIntervalElapsed: spec.interval elapsed since the last request.
	ReasonIntervalElapsed Reason = "IntervalElapsed"
	// ReasonRetryIntervalElapsed: the KCLRun is not Ready and spec.retryInterval elapsed.
	ReasonRetryIntervalElapsed Reason = "RetryIntervalElapsed"
	// ReasonDependencyReady: a KCLRun listed in spec.dependsOn became Ready.
	ReasonDependencyReady Reason = "DependencyReady"
	// ReasonImagePolicyChanged: an ImagePolicy listed in status.imagePolicies
	// has a new status.latestRef.
	ReasonImagePolicyChanged Reason = "ImagePolicyChanged"
	// ReasonDriftDetected: the drift watcher saw an applied object change.
	ReasonDriftDetected Reason = v1alpha1.DriftDetectedReason
	// ReasonImageRolloutChanged: an ImageRollout changed the image of the
	// KCLRun's stage (admitted, rolled back, completed).
	ReasonImageRolloutChanged Reason = "ImageRolloutChanged"
)

// Request is one reconcile request for one KCLRun. It is a hint: the applier
// reads the KCLRun and its source afresh; the fields below tell it, and the
// humans reading its logs, what the watcher saw.
type Request struct {
	// Version is the schema version, SchemaVersion when written by this package.
	Version int `json:"version"`
	// Namespace and Name of the KCLRun.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// UID of the KCLRun seen, so a request for a deleted-and-recreated object
	// can be told apart.
	UID string `json:"uid,omitempty"`
	// Generation of the KCLRun seen.
	Generation int64 `json:"generation,omitempty"`
	// Reason the request was published.
	Reason Reason `json:"reason"`
	// Trigger names the object whose change caused the request, as
	// "Kind/namespace/name", when it is not the KCLRun itself (a source, a
	// dependency, an ImagePolicy).
	Trigger string `json:"trigger,omitempty"`
	// Revision and Digest of the source artifact seen by the watcher, if any.
	Revision string `json:"revision,omitempty"`
	Digest   string `json:"digest,omitempty"`
	// RequestedAt is the value of the reconcile.fluxcd.io/requestedAt
	// annotation seen, for the applier to copy into status.lastHandledReconcileAt.
	RequestedAt string `json:"requestedAt,omitempty"`
	// Publisher names the watcher start that published the request: an
	// applier in the same process reads that watcher's caches for it.
	Publisher string `json:"publisher,omitempty"`
	// PublishedAt is the watcher's clock when it published.
	PublishedAt time.Time `json:"publishedAt"`
}

// Key is "namespace/name", the form used in logs and in status.imagePolicies.
func (r Request) Key() string { return r.Namespace + "/" + r.Name }

// TriggerOf is the Trigger naming an object: "Kind/namespace/name" (a
// resource's group and name in place of the kind for an applied object).
func TriggerOf(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// TriggeredBy is the namespace and name of the object that triggered r when
// it is of kind (TriggerOf); false otherwise.
func (r Request) TriggeredBy(kind string) (namespace, name string, ok bool) {
	k, rest, _ := strings.Cut(r.Trigger, "/")
	namespace, name, ok = strings.Cut(rest, "/")
	if k != kind || !ok {
		return "", "", false
	}
	return namespace, name, true
}

// ErrUnknownVersion is returned by Decode for a schema version it can't read.
var ErrUnknownVersion = errors.New("unknown reconcile request schema version")

// Encode marshals a request, stamping the current schema version.
func Encode(r Request) ([]byte, error) {
	r.Version = SchemaVersion
	if r.Namespace == "" || r.Name == "" {
		return nil, fmt.Errorf("reconcile request without namespace/name: %q/%q", r.Namespace, r.Name)
	}
	if r.Reason == "" {
		return nil, fmt.Errorf("reconcile request for %s without a reason", r.Key())
	}
	data, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encoding reconcile request for %s: %w", r.Key(), err)
	}
	return data, nil
}

// Decode unmarshals a request; unknown fields are ignored so that newer
// writers of the same version stay readable.
func Decode(data []byte) (Request, error) {
	var r Request
	if err := json.Unmarshal(data, &r); err != nil {
		return Request{}, fmt.Errorf("decoding reconcile request: %w", err)
	}
	if r.Version != SchemaVersion {
		return Request{}, fmt.Errorf("%w: %d", ErrUnknownVersion, r.Version)
	}
	if r.Namespace == "" || r.Name == "" {
		return Request{}, fmt.Errorf("decoding reconcile request: missing namespace or name")
	}
	return r, nil
}
