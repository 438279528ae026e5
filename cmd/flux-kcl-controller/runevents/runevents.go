// Package runevents reads a KCLRun's Kubernetes events as `flux-kcl-controller events`
// prints them and the web view shows them: oldest first, kubectl's "last seen" ages, and
// the applier's ImageUpdated events (v1alpha1.ImageUpdatedReason) shortened to the image move they record.
package runevents

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runstatus"
)

// Selector picks the events of one KCLRun in its namespace (list and watch alike).
func Selector(name string) fields.Selector {
	return fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.kind", v1alpha1.KCLRunKind),
		fields.OneTermEqualSelector("involvedObject.name", name),
	)
}

// List reads the events of the KCLRun key, oldest first. The error is the client's, for
// the caller to word.
func List(ctx context.Context, c client.Reader, key types.NamespacedName) ([]corev1.Event, error) {
	var list corev1.EventList
	if err := c.List(ctx, &list, client.InNamespace(key.Namespace), client.MatchingFieldsSelector{Selector: Selector(key.Name)}); err != nil {
		return nil, err
	}
	events := list.Items
	sort.SliceStable(events, func(i, j int) bool { return LastSeen(events[i]).Before(LastSeen(events[j])) })
	return events, nil
}

// moveMessage is the applier's "from → to (policy ns/name, file:line)".
var moveMessage = regexp.MustCompile(`^(\S+) → (\S+) \(policy ([^,]+), ([^)]+)\)$`)

// Move is one image move an ImageUpdated event records.
type Move struct {
	From, To, Policy, Location string
}

// String is the CLI's line: "nginx:1.7.8 → 1.7.9, policy demo/web at main.k:12".
func (m Move) String() string {
	return fmt.Sprintf("%s → %s, policy %s at %s", m.From, runstatus.ImageTail(m.From, m.To), m.Policy, m.Location)
}

// ParseMove reads an ImageUpdated message; ok is false for another message.
func ParseMove(msg string) (Move, bool) {
	m := moveMessage.FindStringSubmatch(msg)
	if m == nil {
		return Move{}, false
	}
	return Move{From: m[1], To: m[2], Policy: m[3], Location: m[4]}, true
}

// ImageMove shortens an ImageUpdated message to "nginx:1.7.8 → 1.7.9, policy demo/web at
// main.k:12"; another message stays as it is.
func ImageMove(msg string) string {
	if m, ok := ParseMove(msg); ok {
		return m.String()
	}
	return msg
}

// LastSeen is when the event last happened, from whichever field its reporter filled.
func LastSeen(e corev1.Event) time.Time {
	switch {
	case e.Series != nil && !e.Series.LastObservedTime.IsZero():
		return e.Series.LastObservedTime.Time
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.FirstTimestamp.Time
}

// Age is kubectl's "LAST SEEN" at now: 5m, or 5m (x3 over 1h).
func Age(e corev1.Event, now time.Time) string {
	t := LastSeen(e)
	if t.IsZero() {
		return "<unknown>"
	}
	s := Since(t, now)
	if e.Count > 1 && !e.FirstTimestamp.IsZero() {
		s = fmt.Sprintf("%s (x%d over %s)", s, e.Count, Since(e.FirstTimestamp.Time, now))
	}
	return s
}

// Since is kubectl's human duration from t to now.
func Since(t, now time.Time) string { return duration.HumanDuration(now.Sub(t)) }
