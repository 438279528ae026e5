package rollout

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Member is a KCLRun that follows the rollout's policy, as Step sees it.
type Member struct {
	Namespace, Name string
	Labels          map[string]string
	// NamespaceLabels are the labels of the KCLRun's namespace.
	NamespaceLabels map[string]string
	// Image is what the rollout gave the KCLRun's last attempt
	// (status.imageRollouts[].image), "" before the first.
	Image string
	// Ready is the KCLRun's Ready condition for its current generation;
	// Unknown while a reconcile runs or the generation is not yet observed.
	Ready metav1.ConditionStatus
	// Message is the Ready condition's message, for a failed stage's message.
	Message string
}

// Observed is what the caller read from the cluster for one Step.
type Observed struct {
	// Election is the policy's status.latestRef; nil when PolicyProblem says why not.
	Election *v1alpha1.RolloutImage
	// PolicyProblem says why the policy gives no election: not found, no latestRef.
	PolicyProblem string
	// Conflict names an older ImageRollout governing the same policy.
	Conflict string
	// Members are the KCLRuns that follow the policy and that the rollout may govern.
	Members []Member
}

// Event is one transition to record on the ImageRollout.
type Event struct {
	Warning bool
	Reason  string
	Message string
}

// Result is what a Step decided besides the new status.
type Result struct {
	Events []Event
	// Reconcile lists the stages whose image changed; their KCLRuns must be
	// reconciled now. "" stands for the KCLRuns no stage selects.
	Reconcile []string
	// RequeueAfter is when time alone changes the rollout (a bake or a freeze
	// window ending); zero when only an event will.
	RequeueAfter time.Duration
}

// stepState carries one Step's working values.
type stepState struct {
	ro      *v1alpha1.ImageRollout
	now     time.Time
	res     Result
	stages  *Stages
	freeze  []freezeWindow
	members map[string][]Member // by stage name, "" for none
}

// Step advances ro.Status from what was observed at now. It is idempotent:
// a Step with the same inputs changes nothing more and records no event.
func Step(ro *v1alpha1.ImageRollout, obs Observed, now time.Time) Result {
	st := &stepState{ro: ro, now: now}
	status := &ro.Status
	newGeneration := status.ObservedGeneration != ro.Generation
	status.ObservedGeneration = ro.Generation
	retry := false
	if v, ok := meta.ReconcileAnnotationValue(ro.GetAnnotations()); ok && v != status.LastHandledReconcileAt {
		status.LastHandledReconcileAt = v
		retry = true
	}

	if problem, reason, stalled := st.validate(obs); problem != "" {
		st.invalid(reason, problem, stalled)
		return st.res
	}
	st.syncStages()

	if status.LastGood == nil {
		// Created now: the current election is last good, nothing moves.
		status.LastGood = obs.Election.DeepCopy()
		status.Target = obs.Election.DeepCopy()
		for i := range status.Stages {
			status.Stages[i].State = v1alpha1.StageSucceeded
		}
	}
	if !status.Target.Equal(obs.Election) {
		st.newTarget(obs.Election)
	} else if status.Halted && (newGeneration || retry) {
		st.retry()
	}
	st.count()

	if !status.Halted {
		st.advance()
	}
	st.conditions()
	return st.res
}

// validate returns the bad input that stops the rollout, its reason, and
// whether only a change of the spec can fix it (Stalled).
func (st *stepState) validate(obs Observed) (string, string, bool) {
	spec := &st.ro.Spec
	var err error
	if st.stages, err = ParseStages(spec.Stages); err != nil {
		return err.Error(), v1alpha1.InvalidStagesReason, true
	}
	if st.freeze, err = parseFreezeWindows(spec.FreezeWindows); err != nil {
		return err.Error(), v1alpha1.InvalidFreezeWindowReason, true
	}
	if obs.Conflict != "" {
		return fmt.Sprintf("ImagePolicy %s is already rolled out by ImageRollout %s", spec.ImagePolicyRef.Name, obs.Conflict),
			v1alpha1.ConflictingRolloutReason, false
	}
	if obs.Election == nil {
		return fmt.Sprintf("ImagePolicy %s: %s", spec.ImagePolicyRef.Name, obs.PolicyProblem), v1alpha1.RolloutPolicyNotFoundReason, false
	}
	if err := st.stages.overlaps(obs.Members); err != nil {
		return err.Error(), v1alpha1.OverlappingStagesReason, false
	}
	st.members = map[string][]Member{}
	for _, m := range obs.Members {
		name := st.stages.StageOf(m.Labels, m.NamespaceLabels)
		st.members[name] = append(st.members[name], m)
	}
	var empty []string
	for _, name := range st.stages.names {
		if len(st.members[name]) == 0 {
			empty = append(empty, name)
		}
	}
	if len(empty) > 0 {
		return fmt.Sprintf("stages %s select no KCLRun that follows ImagePolicy %s", strings.Join(empty, ", "), spec.ImagePolicyRef.Name),
			v1alpha1.EmptyStageReason, false
	}
	return "", "", false
}

// invalid leaves every stage's image as it is: KCLRuns keep what they run.
func (st *stepState) invalid(reason, msg string, stalled bool) {
	ro := st.ro
	if c := conditions.Get(ro, meta.ReadyCondition); c == nil || c.Reason != reason || c.Message != msg {
		st.event(true, reason, msg)
	}
	conditions.MarkFalse(ro, meta.ReadyCondition, reason, "%s", msg)
	conditions.Delete(ro, meta.ReconcilingCondition)
	if stalled {
		conditions.MarkStalled(ro, reason, "%s", msg)
	} else {
		conditions.Delete(ro, meta.StalledCondition)
	}
}

// syncStages makes status.stages follow spec.stages by name: a new stage is
// Pending at last good (Succeeded when nothing rolls out).
func (st *stepState) syncStages() {
	status := &st.ro.Status
	idle := status.Target.Equal(status.LastGood)
	byName := map[string]v1alpha1.StageStatus{}
	for _, s := range status.Stages {
		byName[s.Name] = s
	}
	stages := make([]v1alpha1.StageStatus, 0, len(st.ro.Spec.Stages))
	for _, spec := range st.ro.Spec.Stages {
		s, ok := byName[spec.Name]
		if !ok {
			s = v1alpha1.StageStatus{Name: spec.Name, State: v1alpha1.StagePending}
			if idle {
				s.State = v1alpha1.StageSucceeded
			}
		}
		stages = append(stages, s)
	}
	status.Stages = stages
}

// newTarget starts rolling out a new election, superseding a running rollout.
func (st *stepState) newTarget(election *v1alpha1.RolloutImage) {
	status := &st.ro.Status
	old := status.Target
	if !old.Equal(status.LastGood) && !status.Halted {
		var holding []string
		for _, s := range status.Stages {
			if s.Image != nil && s.Image.Equal(old) {
				holding = append(holding, s.Name)
			}
		}
		msg := fmt.Sprintf("target %s superseded by %s", old, election)
		if len(holding) > 0 {
			msg += fmt.Sprintf("; stages %s keep %s until %s reaches them", strings.Join(holding, ", "), old, election)
		}
		st.event(false, v1alpha1.RolloutSupersededReason, msg)
	}
	status.Target = election.DeepCopy()
	status.Halted = false
	for i := range status.Stages {
		s := &status.Stages[i]
		*s = v1alpha1.StageStatus{Name: s.Name, State: v1alpha1.StagePending, Image: s.Image}
		if s.Image.Equal(status.LastGood) {
			s.Image = nil
		}
	}
}

// retry puts the failed stage back to Pending: it is admitted again.
func (st *stepState) retry() {
	status := &st.ro.Status
	status.Halted = false
	for i := range status.Stages {
		if s := &status.Stages[i]; s.State == v1alpha1.StageFailed {
			*s = v1alpha1.StageStatus{Name: s.Name, State: v1alpha1.StagePending, Image: s.Image}
		}
	}
}

// imageOf is the image a stage's KCLRuns are given.
func imageOf(status *v1alpha1.ImageRolloutStatus, s *v1alpha1.StageStatus) *v1alpha1.RolloutImage {
	if s.Image != nil {
		return s.Image
	}
	return status.LastGood
}

// count refreshes each stage's ready/total: KCLRuns Ready at the stage's image.
func (st *stepState) count() {
	status := &st.ro.Status
	for i := range status.Stages {
		s := &status.Stages[i]
		img := imageOf(status, s).String()
		s.Total, s.Ready = int32(len(st.members[s.Name])), 0
		for _, m := range st.members[s.Name] {
			if m.Image == img && m.Ready == metav1.ConditionTrue {
				s.Ready++
			}
		}
	}
}

// advance moves through the stages until one waits.
func (st *stepState) advance() {
	status := &st.ro.Status
	for range len(status.Stages) + 1 {
		k := -1
		for i := range status.Stages {
			if status.Stages[i].State != v1alpha1.StageSucceeded {
				k = i
				break
			}
		}
		if k < 0 {
			st.complete()
			return
		}
		s := &status.Stages[k]
		spec := &st.ro.Spec.Stages[k]
		switch s.State {
		case v1alpha1.StageProgressing, v1alpha1.StageBaking:
			if !st.gate(s, spec) {
				return
			}
		default:
			if !st.admit(s, spec) {
				return
			}
		}
	}
}

// admit gives a stage the target unless something holds it; it reports
// whether the stage was admitted.
func (st *stepState) admit(s *v1alpha1.StageStatus, spec *v1alpha1.RolloutStage) bool {
	ro, status := st.ro, &st.ro.Status
	target := status.Target.String()
	if ro.Spec.Suspend {
		s.State, s.Message = v1alpha1.StagePending, "the rollout is suspended"
		return false
	}
	if until, which := frozenUntil(st.freeze, st.now); !until.IsZero() {
		msg := fmt.Sprintf("freeze window %s is open until %s", which, until.UTC().Format(time.RFC3339))
		if s.State != v1alpha1.StageFrozen {
			st.event(false, v1alpha1.FrozenReason, fmt.Sprintf("stage %s waits for %s: %s", s.Name, target, msg))
		}
		s.State, s.Message = v1alpha1.StageFrozen, msg
		st.requeue(until.Sub(st.now))
		return false
	}
	if spec.Approval {
		a, ok := approvalFor(ro, s.Name, target)
		if !ok {
			if s.State != v1alpha1.StageAwaitingApproval {
				st.event(false, v1alpha1.AwaitingApprovalReason, fmt.Sprintf("stage %s awaits approval of %s", s.Name, target))
			}
			s.State = v1alpha1.StageAwaitingApproval
			s.Message = fmt.Sprintf("awaiting approval of %s (annotation %s)", target, v1alpha1.ApprovalAnnotation(s.Name))
			return false
		}
		s.ApprovedBy = a.By
		st.event(false, v1alpha1.ApprovedReason, fmt.Sprintf("stage %s approved by %s for %s", s.Name, a.By, target))
	}
	now := metav1.NewTime(st.now)
	s.State, s.Message, s.AdmittedAt, s.ReadyAt, s.FinishedAt = v1alpha1.StageProgressing, "", &now, nil, nil
	changed := !imageOf(status, s).Equal(status.Target)
	s.Image = status.Target.DeepCopy()
	if s.Image.Equal(status.LastGood) {
		s.Image = nil
	}
	st.event(false, v1alpha1.StageAdmittedReason, fmt.Sprintf("stage %s admitted: %d KCLRuns get %s", s.Name, s.Total, target))
	if changed {
		st.res.Reconcile = append(st.res.Reconcile, s.Name)
	}
	st.recount(s)
	return st.gate(s, spec)
}

// recount counts a stage's KCLRuns Ready at its (new) image.
func (st *stepState) recount(s *v1alpha1.StageStatus) {
	img := imageOf(&st.ro.Status, s).String()
	s.Ready = 0
	for _, m := range st.members[s.Name] {
		if m.Image == img && m.Ready == metav1.ConditionTrue {
			s.Ready++
		}
	}
}

// approvalFor finds the approval of a stage for the target.
func approvalFor(ro *v1alpha1.ImageRollout, stage, target string) (v1alpha1.Approval, bool) {
	v, ok := ro.GetAnnotations()[v1alpha1.ApprovalAnnotation(stage)]
	if !ok {
		return v1alpha1.Approval{}, false
	}
	a, err := v1alpha1.ParseApproval(v)
	if err != nil || a.Target != target {
		return v1alpha1.Approval{}, false
	}
	return a, true
}

// gate checks an admitted stage: failed, still progressing, baking, or
// passed; it reports whether the stage passed.
func (st *stepState) gate(s *v1alpha1.StageStatus, spec *v1alpha1.RolloutStage) bool {
	ro, status := st.ro, &st.ro.Status
	target := status.Target.String()
	var failed, waiting []string
	for _, m := range st.members[s.Name] {
		switch {
		case m.Image != target:
			waiting = append(waiting, m.Namespace+"/"+m.Name)
		case m.Ready == metav1.ConditionFalse:
			failed = append(failed, fmt.Sprintf("%s/%s: %s", m.Namespace, m.Name, m.Message))
		case m.Ready != metav1.ConditionTrue:
			waiting = append(waiting, m.Namespace+"/"+m.Name)
		}
	}
	now := metav1.NewTime(st.now)
	if len(failed) > 0 && !ro.Spec.Suspend {
		sort.Strings(failed)
		s.State, s.FinishedAt, s.ReadyAt = v1alpha1.StageFailed, &now, nil
		s.Message = fmt.Sprintf("Ready=False at %s: %s", target, strings.Join(failed[:min(len(failed), 3)], "; "))
		if len(failed) > 3 {
			s.Message += fmt.Sprintf(" (and %d more)", len(failed)-3)
		}
		status.Halted = true
		st.event(true, v1alpha1.StageFailedReason, fmt.Sprintf("stage %s failed at %s: %s", s.Name, target, s.Message))
		if ro.GetOnFailure() == v1alpha1.OnFailureRollback {
			s.Image = nil
			st.res.Reconcile = append(st.res.Reconcile, s.Name)
			st.recount(s)
			st.event(true, v1alpha1.RolledBackReason, fmt.Sprintf("stage %s rolled back from %s to %s", s.Name, target, status.LastGood))
		}
		return false
	}
	if len(waiting) > 0 {
		sort.Strings(waiting)
		s.State, s.ReadyAt = v1alpha1.StageProgressing, nil
		s.Message = fmt.Sprintf("%d/%d KCLRuns Ready at %s; waiting for %s", s.Ready, s.Total, target, strings.Join(waiting[:min(len(waiting), 3)], ", "))
		if len(waiting) > 3 {
			s.Message += fmt.Sprintf(" and %d more", len(waiting)-3)
		}
		return false
	}
	if s.ReadyAt == nil {
		// The status keeps whole seconds: counted from the next one, a bake
		// read back from it never ends early.
		s.ReadyAt = &metav1.Time{Time: ceilSecond(st.now)}
	}
	if left := s.ReadyAt.Add(spec.BakeDuration()).Sub(st.now); spec.BakeDuration() > 0 && left > 0 {
		s.State = v1alpha1.StageBaking
		s.Message = fmt.Sprintf("every KCLRun Ready at %s; baking until %s", target, s.ReadyAt.Add(spec.BakeDuration()).UTC().Format(time.RFC3339))
		st.requeue(left)
		return false
	}
	s.State, s.FinishedAt, s.Message = v1alpha1.StageSucceeded, &now, ""
	st.event(false, v1alpha1.StagePassedReason, fmt.Sprintf("stage %s passed: %d KCLRuns Ready at %s", s.Name, s.Total, target))
	return true
}

// ceilSecond is t rounded up to a whole second.
func ceilSecond(t time.Time) time.Time {
	if c := t.Truncate(time.Second); c.Before(t) {
		return c.Add(time.Second)
	}
	return t
}

// complete makes the target last good.
func (st *stepState) complete() {
	status := &st.ro.Status
	if status.Target.Equal(status.LastGood) {
		return
	}
	status.LastGood = status.Target.DeepCopy()
	for i := range status.Stages {
		status.Stages[i].Image = nil
	}
	if len(st.members[""]) > 0 {
		st.res.Reconcile = append(st.res.Reconcile, "")
	}
	st.event(false, v1alpha1.RolloutCompletedReason, fmt.Sprintf("rolled out %s to %d stages", status.Target, len(status.Stages)))
}

// conditions sets Ready, Reconciling and Stalled from the stages.
func (st *stepState) conditions() {
	ro, status := st.ro, &st.ro.Status
	var current *v1alpha1.StageStatus
	for i := range status.Stages {
		if status.Stages[i].State != v1alpha1.StageSucceeded {
			current = &status.Stages[i]
			break
		}
	}
	switch {
	case current == nil:
		conditions.MarkTrue(ro, meta.ReadyCondition, v1alpha1.UpToDateReason, "Rolled out %s", status.LastGood)
		conditions.Delete(ro, meta.ReconcilingCondition)
		conditions.Delete(ro, meta.StalledCondition)
	case status.Halted:
		reason := v1alpha1.StageFailedReason
		if ro.GetOnFailure() == v1alpha1.OnFailureRollback {
			reason = v1alpha1.RolledBackReason
		}
		conditions.MarkFalse(ro, meta.ReadyCondition, reason, "stage %s: %s", current.Name, current.Message)
		conditions.MarkStalled(ro, reason, "stage %s failed; a new election, a spec change or a reconcile request retries it", current.Name)
		conditions.Delete(ro, meta.ReconcilingCondition)
	default:
		reason := v1alpha1.RolloutProgressingReason
		switch current.State {
		case v1alpha1.StageAwaitingApproval:
			reason = v1alpha1.AwaitingApprovalReason
		case v1alpha1.StageFrozen:
			reason = v1alpha1.FrozenReason
		case v1alpha1.StagePending:
			if ro.Spec.Suspend {
				reason = v1alpha1.RolloutSuspendedReason
			}
		}
		msg := fmt.Sprintf("rolling out %s: stage %s %s", status.Target, current.Name, current.State)
		if current.Message != "" {
			msg += ": " + current.Message
		}
		conditions.MarkUnknown(ro, meta.ReadyCondition, reason, "%s", msg)
		conditions.MarkReconciling(ro, reason, "%s", msg)
		conditions.Delete(ro, meta.StalledCondition)
	}
}

func (st *stepState) event(warning bool, reason, msg string) {
	st.res.Events = append(st.res.Events, Event{Warning: warning, Reason: reason, Message: msg})
}

// requeue keeps the earliest wake-up.
func (st *stepState) requeue(d time.Duration) {
	if d <= 0 {
		d = time.Second
	}
	if st.res.RequeueAfter == 0 || d < st.res.RequeueAfter {
		st.res.RequeueAfter = d
	}
}

// ImageFor is the image a rollout gives a KCLRun of the stage ("" for none):
// its stage's image, last good for a KCLRun no stage selects.
func ImageFor(ro *v1alpha1.ImageRollout, stage string) *v1alpha1.RolloutImage {
	status := &ro.Status
	if stage != "" {
		if s := ro.StageStatus(stage); s != nil {
			return imageOf(status, s)
		}
	}
	return status.LastGood
}
