// Package runstatus reads a KCLRun's status the way an operator reads it: its Ready
// condition and message, the state it is in (ready, failing, suspended, progressing), the
// program location an error names, and the images the ImagePolicies moved. The CLI's `get`
// and the web view both print what this package decides, so the two never disagree.
package runstatus

import (
	"regexp"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// State is where a KCLRun stands, one word for the overview and the list filters.
type State string

const (
	// Ready: the last reconcile applied the program (Ready True).
	Ready State = "Ready"
	// Failing: the last reconcile failed and nothing is running (Ready False, or Stalled).
	Failing State = "Failing"
	// Suspended: spec.suspend; nothing is reconciled whatever the conditions say.
	Suspended State = "Suspended"
	// Progressing: a reconcile is under way, or none has finished for this generation yet.
	Progressing State = "Progressing"
)

// States in the order the overview shows them.
var States = []State{Ready, Failing, Progressing, Suspended}

// Of is the run's state. Suspension wins, then a reconcile in progress or a generation the
// controller has not seen, then Ready's status (Stalled counts as failing).
func Of(run *v1alpha1.KCLRun) State {
	if run.Spec.Suspend {
		return Suspended
	}
	conds := run.Status.Conditions
	ready := apimeta.FindStatusCondition(conds, meta.ReadyCondition)
	if stalled := apimeta.FindStatusCondition(conds, meta.StalledCondition); stalled != nil && stalled.Status == metav1.ConditionTrue {
		return Failing
	}
	if ready == nil || run.Status.ObservedGeneration < run.Generation || ready.Status == metav1.ConditionUnknown {
		return Progressing
	}
	if r := apimeta.FindStatusCondition(conds, meta.ReconcilingCondition); r != nil && r.Status == metav1.ConditionTrue {
		return Progressing
	}
	if ready.Status == metav1.ConditionTrue {
		return Ready
	}
	return Failing
}

// ReadyCondition is the Ready condition's status and message, as flux prints them; a run
// never reconciled is False, "waiting to be reconciled".
func ReadyCondition(conds []metav1.Condition) (string, string) {
	if c := apimeta.FindStatusCondition(conds, meta.ReadyCondition); c != nil {
		return string(c.Status), c.Message
	}
	return string(metav1.ConditionFalse), "waiting to be reconciled"
}

var hexRun = regexp.MustCompile(`[0-9a-f]{40,}`)

// TruncateHex cuts commit and digest hex to 8 characters, as flux get does.
func TruncateHex(s string) string {
	return hexRun.ReplaceAllStringFunc(s, func(h string) string { return h[:8] })
}

// programLocation is file:line (and :column) of a .k file, as the compiler's messages and
// the image markers name them.
var programLocation = regexp.MustCompile(`[\w./-]+\.k:\d+(?::\d+)?`)

// Location is the first program location a message names ("main.k:12:5"), or "".
func Location(message string) string {
	return programLocation.FindString(message)
}

// ImageMove is an image a policy moved, shortened as `get kclruns` prints it:
// "nginx:1.7.8 → 1.7.9"; an image the policy left where it was is itself.
func ImageMove(img v1alpha1.ResolvedImage) string {
	if img.From == img.To {
		return img.To
	}
	return img.From + " → " + ImageTail(img.From, img.To)
}

// ImageTail is "to" without the repository "from" shares with it: nginx:1.7.8 → 1.7.9.
func ImageTail(from, to string) string {
	repo := func(s string) string {
		if i := strings.LastIndexAny(s, ":@"); i > strings.LastIndex(s, "/") {
			return s[:i]
		}
		return s
	}
	if r := repo(from); r != from && r == repo(to) {
		return to[len(r)+1:]
	}
	return to
}
