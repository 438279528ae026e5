package rollout

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

var (
	t0  = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC) // a Wednesday
	v1  = &v1alpha1.RolloutImage{Name: "ghcr.io/org/web", Tag: "1.0.0"}
	v2  = &v1alpha1.RolloutImage{Name: "ghcr.io/org/web", Tag: "2.0.0"}
	v3  = &v1alpha1.RolloutImage{Name: "ghcr.io/org/web", Tag: "3.0.0"}
	bad = &v1alpha1.RolloutImage{Name: "ghcr.io/org/web", Tag: "broken"}
)

// fleet is a rollout and its KCLRuns, stepped the way the watcher steps them:
// the applier's part (a KCLRun reconciled to its stage's image) is apply.
type fleet struct {
	t        *testing.T
	ro       *v1alpha1.ImageRollout
	election *v1alpha1.RolloutImage
	members  []Member
	now      time.Time
	// failing images make a KCLRun Ready=False when applied.
	failing map[string]bool
	events  []Event
}

func newFleet(t *testing.T, mutate func(*v1alpha1.ImageRollout)) *fleet {
	ro := &v1alpha1.ImageRollout{
		ObjectMeta: metav1.ObjectMeta{Namespace: "platform", Name: "web", Generation: 1},
		Spec: v1alpha1.ImageRolloutSpec{
			ImagePolicyRef: meta.LocalObjectReference{Name: "web"},
			Stages: []v1alpha1.RolloutStage{
				{Name: "canary", Selector: matchStage("canary"), Bake: &metav1.Duration{Duration: 10 * time.Minute}},
				{Name: "early", Selector: matchStage("early")},
				{Name: "rest"},
			},
		},
	}
	if mutate != nil {
		mutate(ro)
	}
	f := &fleet{t: t, ro: ro, election: v1, now: t0, failing: map[string]bool{}}
	for _, m := range []struct{ name, stage string }{{"c1", "canary"}, {"c2", "canary"}, {"e1", "early"}, {"r1", ""}, {"r2", ""}} {
		f.members = append(f.members, Member{Namespace: "team-" + m.name, Name: "app",
			Labels: map[string]string{"rollout.example.com/stage": m.stage}, Image: v1.String(), Ready: metav1.ConditionTrue})
	}
	f.step()
	return f
}

func matchStage(stage string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"rollout.example.com/stage": stage}}
}

func (f *fleet) step() Result {
	f.t.Helper()
	res := Step(f.ro, Observed{Election: f.election, Members: f.members}, f.now)
	f.events = append(f.events, res.Events...)
	again := Step(f.ro.DeepCopy(), Observed{Election: f.election, Members: f.members}, f.now)
	if len(again.Events) > 0 || len(again.Reconcile) > 0 {
		f.t.Fatalf("a second Step with the same inputs is not idempotent: %+v", again)
	}
	return res
}

// apply reconciles every KCLRun to the image the rollout gives it, as the applier would.
func (f *fleet) apply() {
	stages, err := ParseStages(f.ro.Spec.Stages)
	if err != nil {
		return // the applier keeps what the status said last; nothing is reconciled
	}
	for i := range f.members {
		m := &f.members[i]
		img := ImageFor(f.ro, stages.StageOf(m.Labels, nil)).String()
		m.Image, m.Ready, m.Message = img, metav1.ConditionTrue, ""
		if f.failing[img] {
			m.Ready, m.Message = metav1.ConditionFalse, "health check failed"
		}
	}
}

// settle applies and steps until nothing changes.
func (f *fleet) settle() {
	for range 10 {
		f.apply()
		if res := f.step(); len(res.Reconcile) == 0 {
			f.apply()
			f.step()
			return
		}
	}
}

func (f *fleet) images() map[string]string {
	out := map[string]string{}
	for _, m := range f.members {
		out[m.Namespace] = strings.TrimPrefix(m.Image, "ghcr.io/org/web:")
	}
	return out
}

func (f *fleet) states() string {
	var s []string
	for _, st := range f.ro.Status.Stages {
		s = append(s, st.Name+"="+st.State)
	}
	return strings.Join(s, " ")
}

func (f *fleet) expect(states string, images map[string]string) {
	f.t.Helper()
	if got := f.states(); got != states {
		f.t.Errorf("stages: got %s, want %s", got, states)
	}
	got := f.images()
	for ns, want := range images {
		if got[ns] != want {
			f.t.Errorf("%s runs %s, want %s (all: %v)", ns, got[ns], want, got)
		}
	}
}

func (f *fleet) reasons() []string {
	var out []string
	for _, e := range f.events {
		out = append(out, e.Reason)
	}
	return out
}

func TestCreatingMovesNothing(t *testing.T) {
	f := newFleet(t, nil)
	if !f.ro.Status.LastGood.Equal(v1) || !f.ro.Status.Target.Equal(v1) {
		t.Fatalf("last good %s target %s, want both %s", f.ro.Status.LastGood, f.ro.Status.Target, v1)
	}
	f.expect("canary=Succeeded early=Succeeded rest=Succeeded", map[string]string{"team-c1": "1.0.0", "team-r1": "1.0.0"})
	if !conditions.IsReady(f.ro) || len(f.events) != 0 {
		t.Fatalf("Ready %v events %v", conditions.IsReady(f.ro), f.events)
	}
}

func TestStagesInOrderWithBake(t *testing.T) {
	f := newFleet(t, nil)
	f.election = v2
	res := f.step()
	if len(res.Reconcile) != 1 || res.Reconcile[0] != "canary" {
		t.Fatalf("reconcile %v, want canary", res.Reconcile)
	}
	f.expect("canary=Progressing early=Pending rest=Pending", nil)
	f.settle()
	// Canary is Ready at 2.0.0 and bakes 10m; nobody else has moved.
	f.expect("canary=Baking early=Pending rest=Pending",
		map[string]string{"team-c1": "2.0.0", "team-c2": "2.0.0", "team-e1": "1.0.0", "team-r1": "1.0.0"})
	if res := f.step(); res.RequeueAfter != 10*time.Minute {
		t.Fatalf("requeue after %s, want the bake", res.RequeueAfter)
	}
	f.now = f.now.Add(9 * time.Minute)
	f.settle()
	f.expect("canary=Baking early=Pending rest=Pending", map[string]string{"team-e1": "1.0.0"})
	// A canary leaving Ready restarts the bake.
	f.members[0].Ready = metav1.ConditionUnknown
	f.step()
	f.expect("canary=Progressing early=Pending rest=Pending", nil)
	f.members[0].Ready = metav1.ConditionTrue
	f.step()
	f.now = f.now.Add(5 * time.Minute)
	f.step()
	f.expect("canary=Baking early=Pending rest=Pending", nil)
	f.now = f.now.Add(5 * time.Minute)
	res = f.step()
	f.expect("canary=Succeeded early=Progressing rest=Pending", map[string]string{"team-e1": "1.0.0"})
	if len(res.Reconcile) != 1 || res.Reconcile[0] != "early" {
		t.Fatalf("reconcile %v, want early at once", res.Reconcile)
	}
	f.settle()
	f.expect("canary=Succeeded early=Succeeded rest=Succeeded", map[string]string{"team-e1": "2.0.0", "team-r1": "2.0.0"})
	if !f.ro.Status.LastGood.Equal(v2) || !conditions.IsReady(f.ro) {
		t.Fatalf("last good %s, Ready %v", f.ro.Status.LastGood, conditions.IsReady(f.ro))
	}
	want := []string{"StageAdmitted", "StagePassed", "StageAdmitted", "StagePassed", "StageAdmitted", "StagePassed", "RolloutCompleted"}
	if got := f.reasons(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestApproval(t *testing.T) {
	f := newFleet(t, func(ro *v1alpha1.ImageRollout) {
		ro.Spec.Stages[0].Bake = nil
		ro.Spec.Stages[1].Approval = true
	})
	f.election = v2
	f.step()
	f.settle()
	f.expect("canary=Succeeded early=AwaitingApproval rest=Pending", map[string]string{"team-e1": "1.0.0"})
	// An approval of another image does not count.
	f.ro.Annotations = map[string]string{v1alpha1.ApprovalAnnotation("early"): v1alpha1.Approval{Target: v3.String(), By: "mallory"}.Encode()}
	f.settle()
	f.expect("canary=Succeeded early=AwaitingApproval rest=Pending", map[string]string{"team-e1": "1.0.0"})
	if c := conditions.Get(f.ro, meta.ReadyCondition); c.Reason != v1alpha1.AwaitingApprovalReason {
		t.Fatalf("Ready reason %s", c.Reason)
	}
	f.ro.Annotations[v1alpha1.ApprovalAnnotation("early")] = v1alpha1.Approval{Target: v2.String(), By: "alice@example.com", At: metav1.NewTime(t0)}.Encode()
	f.settle()
	f.expect("canary=Succeeded early=Succeeded rest=Succeeded", map[string]string{"team-e1": "2.0.0", "team-r1": "2.0.0"})
	if by := f.ro.StageStatus("early").ApprovedBy; by != "alice@example.com" {
		t.Fatalf("approved by %q", by)
	}
	var approved string
	for _, e := range f.events {
		if e.Reason == v1alpha1.ApprovedReason {
			approved = e.Message
		}
	}
	if !strings.Contains(approved, "alice@example.com") || !strings.Contains(approved, "2.0.0") {
		t.Fatalf("Approved event %q names neither who nor what", approved)
	}
}

func TestFreezeWindowInTimeZone(t *testing.T) {
	// Friday 16:00 in Berlin (15:00 UTC in winter) for 64h: until Monday 08:00 Berlin.
	f := newFleet(t, func(ro *v1alpha1.ImageRollout) {
		ro.Spec.Stages[0].Bake = nil
		ro.Spec.FreezeWindows = []v1alpha1.FreezeWindow{{Schedule: "0 16 * * FRI", Duration: metav1.Duration{Duration: 64 * time.Hour}, TimeZone: "Europe/Berlin"}}
	})
	f.now = time.Date(2026, 12, 4, 14, 59, 0, 0, time.UTC) // Friday 15:59 Berlin
	f.election = v2
	f.step()
	f.expect("canary=Progressing early=Pending rest=Pending", nil)
	f.now = time.Date(2026, 12, 4, 15, 0, 0, 0, time.UTC) // 16:00 Berlin: frozen
	f.apply()
	res := f.step()
	f.expect("canary=Succeeded early=Frozen rest=Pending", map[string]string{"team-c1": "2.0.0", "team-e1": "1.0.0"})
	monday := time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC) // 08:00 Berlin
	if want := monday.Sub(f.now); res.RequeueAfter != want {
		t.Fatalf("requeue after %s, want %s (Monday 08:00 Berlin)", res.RequeueAfter, want)
	}
	f.now = monday.Add(-time.Minute)
	f.settle()
	f.expect("canary=Succeeded early=Frozen rest=Pending", map[string]string{"team-e1": "1.0.0"})
	f.now = monday
	f.settle()
	f.expect("canary=Succeeded early=Succeeded rest=Succeeded", map[string]string{"team-e1": "2.0.0"})
}

func TestSuspend(t *testing.T) {
	f := newFleet(t, func(ro *v1alpha1.ImageRollout) { ro.Spec.Stages[0].Bake = nil })
	f.ro.Spec.Suspend = true
	f.election = v2
	f.settle()
	f.expect("canary=Pending early=Pending rest=Pending", map[string]string{"team-c1": "1.0.0"})
	if c := conditions.Get(f.ro, meta.ReadyCondition); c.Reason != v1alpha1.RolloutSuspendedReason {
		t.Fatalf("Ready reason %s", c.Reason)
	}
	f.ro.Spec.Suspend = false
	f.settle()
	f.expect("canary=Succeeded early=Succeeded rest=Succeeded", map[string]string{"team-c1": "2.0.0"})
}

func TestHaltAndRollback(t *testing.T) {
	for _, tc := range []struct {
		onFailure string
		canary    string
		reason    string
	}{
		{v1alpha1.OnFailureHalt, "broken", v1alpha1.StageFailedReason},
		{v1alpha1.OnFailureRollback, "1.0.0", v1alpha1.RolledBackReason},
	} {
		t.Run(tc.onFailure, func(t *testing.T) {
			f := newFleet(t, func(ro *v1alpha1.ImageRollout) { ro.Spec.OnFailure, ro.Spec.Stages[0].Bake = tc.onFailure, nil })
			f.failing[bad.String()] = true
			f.election = bad
			f.settle()
			f.expect("canary=Failed early=Pending rest=Pending",
				map[string]string{"team-c1": tc.canary, "team-e1": "1.0.0", "team-r1": "1.0.0"})
			c := conditions.Get(f.ro, meta.ReadyCondition)
			if c.Status != metav1.ConditionFalse || c.Reason != tc.reason || !strings.Contains(c.Message, "health check failed") {
				t.Fatalf("Ready %+v", c)
			}
			if !conditions.IsStalled(f.ro) {
				t.Fatalf("a halted rollout is not Stalled")
			}
			// A newer election starts over from the first stage.
			f.election = v2
			f.settle()
			f.expect("canary=Succeeded early=Succeeded rest=Succeeded", map[string]string{"team-c1": "2.0.0", "team-r1": "2.0.0"})
		})
	}
}

func TestRetryAfterHalt(t *testing.T) {
	f := newFleet(t, func(ro *v1alpha1.ImageRollout) { ro.Spec.Stages[0].Bake = nil })
	f.failing[v2.String()] = true
	f.election = v2
	f.settle()
	f.expect("canary=Failed early=Pending rest=Pending", nil)
	delete(f.failing, v2.String()) // fixed outside (a quota raised, say)
	f.ro.Annotations = map[string]string{meta.ReconcileRequestAnnotation: "now"}
	f.settle()
	f.expect("canary=Succeeded early=Succeeded rest=Succeeded", map[string]string{"team-r1": "2.0.0"})
}

func TestSupersede(t *testing.T) {
	f := newFleet(t, func(ro *v1alpha1.ImageRollout) { ro.Spec.Stages[1].Approval = true; ro.Spec.Stages[0].Bake = nil })
	f.election = v2
	f.settle()
	f.expect("canary=Succeeded early=AwaitingApproval rest=Pending", map[string]string{"team-c1": "2.0.0"})
	// v3 arrives: canary keeps 2.0.0 (it ran it Ready) until v3 reaches it; nothing moves back.
	f.election = v3
	res := f.step()
	if f.reasons()[len(f.reasons())-2] != v1alpha1.RolloutSupersededReason {
		t.Fatalf("events %v", f.reasons())
	}
	if len(res.Reconcile) != 1 || res.Reconcile[0] != "canary" {
		t.Fatalf("reconcile %v", res.Reconcile)
	}
	f.settle()
	f.expect("canary=Succeeded early=AwaitingApproval rest=Pending", map[string]string{"team-c1": "3.0.0", "team-e1": "1.0.0"})
	if !f.ro.Status.LastGood.Equal(v1) {
		t.Fatalf("last good %s: a superseded target never completed", f.ro.Status.LastGood)
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mutate  func(*v1alpha1.ImageRollout)
		obs     func(*Observed)
		reason  string
		stalled bool
	}{
		{name: "policy missing", obs: func(o *Observed) { o.Election, o.PolicyProblem = nil, "not found" }, reason: v1alpha1.RolloutPolicyNotFoundReason},
		{name: "conflict", obs: func(o *Observed) { o.Conflict = "platform/older" }, reason: v1alpha1.ConflictingRolloutReason},
		{name: "overlap", mutate: func(ro *v1alpha1.ImageRollout) {
			ro.Spec.Stages[1].Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "rollout.example.com/stage", Operator: metav1.LabelSelectorOpIn, Values: []string{"canary", "early"}}}}
		}, reason: v1alpha1.OverlappingStagesReason},
		{name: "bad schedule", mutate: func(ro *v1alpha1.ImageRollout) {
			ro.Spec.FreezeWindows = []v1alpha1.FreezeWindow{{Schedule: "0 16 * * FUNDAY", Duration: metav1.Duration{Duration: time.Hour}}}
		}, reason: v1alpha1.InvalidFreezeWindowReason, stalled: true},
		{name: "bad time zone", mutate: func(ro *v1alpha1.ImageRollout) {
			ro.Spec.FreezeWindows = []v1alpha1.FreezeWindow{{Schedule: "0 16 * * FRI", Duration: metav1.Duration{Duration: time.Hour}, TimeZone: "Mars/Olympus"}}
		}, reason: v1alpha1.InvalidFreezeWindowReason, stalled: true},
		{name: "empty stage", mutate: func(ro *v1alpha1.ImageRollout) { ro.Spec.Stages[1].Selector = matchStage("nobody") }, reason: v1alpha1.EmptyStageReason},
		{name: "rest not last", mutate: func(ro *v1alpha1.ImageRollout) { ro.Spec.Stages[0].Selector = nil }, reason: v1alpha1.InvalidStagesReason, stalled: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleet(t, nil)
			f.election = v2
			f.settle()
			before := f.images()
			if tc.mutate != nil {
				tc.mutate(f.ro)
			}
			obs := Observed{Election: v3, Members: f.members}
			if tc.obs != nil {
				tc.obs(&obs)
			}
			res := Step(f.ro, obs, f.now)
			c := conditions.Get(f.ro, meta.ReadyCondition)
			if c.Status != metav1.ConditionFalse || c.Reason != tc.reason || c.Message == "" {
				t.Fatalf("Ready %+v, want False %s", c, tc.reason)
			}
			if conditions.IsStalled(f.ro) != tc.stalled {
				t.Fatalf("Stalled %v, want %v", conditions.IsStalled(f.ro), tc.stalled)
			}
			if len(res.Events) != 1 || !res.Events[0].Warning || len(res.Reconcile) != 0 {
				t.Fatalf("result %+v, want one warning and nothing to reconcile", res)
			}
			f.apply()
			if got := f.images(); strings.Join(sortedValues(got), ",") != strings.Join(sortedValues(before), ",") {
				t.Fatalf("images moved: %v -> %v", before, got)
			}
			if res := Step(f.ro, obs, f.now); len(res.Events) != 0 {
				t.Fatalf("the same problem is reported again: %v", res.Events)
			}
		})
	}
}

func sortedValues(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k+"="+m[k])
	}
	sort.Strings(keys)
	return keys
}

func TestNewStageAddedWhileIdle(t *testing.T) {
	f := newFleet(t, nil)
	f.ro.Spec.Stages = append([]v1alpha1.RolloutStage{{Name: "zero", Selector: matchStage("canary")}}, f.ro.Spec.Stages[1:]...)
	f.ro.Generation = 2
	f.step()
	f.expect("zero=Succeeded early=Succeeded rest=Succeeded", nil)
}

func TestFrozenUntilJoinsAdjacentWindows(t *testing.T) {
	windows, err := parseFreezeWindows([]v1alpha1.FreezeWindow{
		{Schedule: "0 9 * * *", Duration: metav1.Duration{Duration: time.Hour}},
		{Schedule: "0 10 * * *", Duration: metav1.Duration{Duration: 30 * time.Minute}},
	})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 2, 9, 30, 0, 0, time.UTC)
	if end, _ := frozenUntil(windows, at); !end.Equal(time.Date(2026, 12, 2, 10, 30, 0, 0, time.UTC)) {
		t.Fatalf("frozen until %s", end)
	}
	if end, _ := frozenUntil(windows, at.Add(2*time.Hour)); !end.IsZero() {
		t.Fatalf("frozen at 11:30 until %s", end)
	}
}

// The status keeps whole seconds (metav1.Time): a stage found Ready at a
// fraction of a second bakes from the next whole one, so the bake read back
// from the apiserver never ends early; a stage without bake passes at once.
func TestBakeNeverEndsEarlyAfterTheStatusRoundTrip(t *testing.T) {
	f := newFleet(t, nil)
	f.now = f.now.Add(400 * time.Millisecond)
	f.election = v2
	f.step()
	f.settle()
	f.expect("canary=Baking early=Pending rest=Pending", nil)
	// What the apiserver gives back.
	readyAt := f.ro.StageStatus("canary").ReadyAt
	readyAt.Time = readyAt.Truncate(time.Second)
	readySince := f.now
	f.now = readySince.Add(10*time.Minute - 100*time.Millisecond)
	f.step()
	f.expect("canary=Baking early=Pending rest=Pending", nil)
	f.now = readySince.Add(10*time.Minute + 600*time.Millisecond) // the next whole second, plus the bake
	f.step()
	f.expect("canary=Succeeded early=Progressing rest=Pending", nil)
	f.settle()
	f.expect("canary=Succeeded early=Succeeded rest=Succeeded", nil)
}
