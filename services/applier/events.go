package applier

import (
	"context"
	"fmt"
	"sync"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/runtime/events"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// eventQueueSize bounds the events waiting for the receiver; when it is
// full (receiver down for long) new events are dropped, reconciles go on.
const eventQueueSize = 1024

// eventRecorder emits Kubernetes events on the KCLRun at once, and POSTs the
// Flux event JSON to --events-addr through fluxcd/pkg/runtime's recorder off
// the reconcile path: its HTTP retries must not hold a KCLRun's lease, nor
// delay the Kubernetes events while notification-controller is unreachable.
type eventRecorder struct {
	log         logr.Logger
	kube        events.Recorder
	webhook     events.Recorder // nil without --events-addr
	broadcaster record.EventBroadcaster
	queue       chan func()
}

func newEventRecorder(log logr.Logger, cfg *rest.Config, scheme *runtime.Scheme, addr string) (*eventRecorder, error) {
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building events client: %w", err)
	}
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: clientset.CoreV1().Events("")})
	legacy := broadcaster.NewRecorder(scheme, corev1.EventSource{Component: FieldManager})
	kube, err := events.NewRecorder(log.WithName("events"), "", FieldManager,
		events.WithScheme(scheme), events.WithLegacyEventRecorder(legacy))
	if err != nil {
		return nil, fmt.Errorf("building event recorder: %w", err)
	}
	r := &eventRecorder{log: log, kube: kube, broadcaster: broadcaster, queue: make(chan func(), eventQueueSize)}
	if addr != "" {
		// The Kubernetes event went out through r.kube already.
		r.webhook, err = events.NewRecorder(log.WithName("events"), addr, FieldManager,
			events.WithScheme(scheme), events.WithLegacyEventRecorder(discardEvents{}), events.WithRetryMax(2))
		if err != nil {
			return nil, fmt.Errorf("building event recorder: %w", err)
		}
	}
	return r, nil
}

// discardEvents is the Kubernetes side of the webhook-only recorder.
type discardEvents struct{}

func (discardEvents) Event(runtime.Object, string, string, string)          {}
func (discardEvents) Eventf(runtime.Object, string, string, string, ...any) {}
func (discardEvents) AnnotatedEventf(runtime.Object, map[string]string, string, string, string, ...any) {
}

func (r *eventRecorder) start(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer r.broadcaster.Shutdown()
		for {
			select {
			case <-ctx.Done():
				return
			case emit := <-r.queue:
				// One post at a time, but shutdown does not wait for one in
				// flight: its retries against an unreachable receiver took
				// seconds off every stop.
				done := make(chan struct{})
				go func() {
					defer close(done)
					emit()
				}()
				select {
				case <-done:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
}

// record queues one event; the revision travels in the metadata keyed by our
// API group, as Flux controllers key it by theirs.
func (r *eventRecorder) record(obj *v1alpha1.KCLRun, revision string, ok bool, reason, msg string) {
	r.recordWith(obj, revision, ok, reason, msg, nil)
}

// recordFinished is kustomize-controller's closing event of a reconcile that
// ended Ready: notification-controller updates the Git commit status from it
// (the commit_status key), so it carries the applied revision.
func (r *eventRecorder) recordFinished(obj *v1alpha1.KCLRun, took time.Duration) {
	msg := fmt.Sprintf("Reconciliation finished in %s, next run in %s", took.String(), obj.Spec.Interval.Duration.String())
	r.recordWith(obj, obj.Status.LastAppliedRevision, true, reasonOf(obj), msg, map[string]string{
		v1alpha1.GroupVersion.Group + "/" + eventv1.MetaCommitStatusKey: eventv1.MetaCommitStatusUpdateValue,
	})
}

func (r *eventRecorder) recordWith(obj *v1alpha1.KCLRun, revision string, ok bool, reason, msg string, metadata map[string]string) {
	if msg == "" {
		return
	}
	snapshot := obj.DeepCopy()
	snapshot.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind(v1alpha1.KCLRunKind))
	if revision != "" {
		if metadata == nil {
			metadata = map[string]string{}
		}
		metadata[v1alpha1.GroupVersion.Group+"/"+eventv1.MetaRevisionKey] = revision
	}
	eventType := eventTypeFor(ok)
	r.kube.AnnotatedEventf(snapshot, nil, metadata, eventType, reason, "", "%s", msg)
	if r.webhook == nil {
		return
	}
	select {
	case r.queue <- func() {
		r.webhook.AnnotatedEventf(snapshot, nil, metadata, eventType, reason, "", "%s", msg)
	}:
	default:
		r.log.Info("event queue full, dropping its notification-controller post", "kclrun", obj.Namespace+"/"+obj.Name, "reason", reason)
	}
}

// eventTypeFor maps success to Normal and failure to Warning.
func eventTypeFor(ok bool) string {
	if ok {
		return corev1.EventTypeNormal
	}
	return corev1.EventTypeWarning
}
