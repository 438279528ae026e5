package faults

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// stageLabel puts a KCLRun in a rollout stage.
const stageLabel = "faults.flux-kcl-controller/stage"

// The rollout's two stages: canary (the first tenant), baked, then the rest.
const (
	canaryStage = "canary"
	restStage   = "rest"
)

// rolloutFleet is a fleet whose tenants all follow one ImagePolicy "web", in a namespace of
// its own, that the ImageRollout "web" there governs: stage canary (the first tenant, with
// a bake) then rest (the others). From before the first election it records every write of
// the tenants' ConfigMaps and of the rollout, with their resourceVersions: one etcd orders
// them all, so the record shows which came first whatever the processes did.
type rolloutFleet struct {
	*fleet
	ns     string
	policy *imagev1.ImagePolicy
	bake   time.Duration
	canary *tenant
	rest   []*tenant
	stage  map[string]string // tenant namespace → stage

	mu       sync.Mutex
	applied  []appliedImage
	statuses []rolloutStatus
	// watchEnded names a record's watch that ended before the test did: the record has gaps.
	watchEnded []string
}

// appliedImage is one write of a tenant's ConfigMap.
type appliedImage struct {
	ns, name, image, rev string
	rv                   int64
	at                   time.Time
}

// rolloutStatus is one write of the ImageRollout.
type rolloutStatus struct {
	rv               int64
	at               time.Time
	target, lastGood string
	halted           bool
	stages           []v1alpha1.StageStatus
}

// startRolloutFleet starts a fleet of opts.tenants tenants following the rollout's policy
// at 1.0.0, waits until they applied it, then creates the rollout (canary baked for bake)
// and waits until it took 1.0.0 as last good and every tenant recorded what it gives.
func startRolloutFleet(t *testing.T, opts fleetOptions, bake time.Duration) *rolloutFleet {
	t.Helper()
	f := startFleet(t, opts)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rf := &rolloutFleet{fleet: f, bake: bake, stage: map[string]string{}}
	var err error
	if rf.ns, err = suite.Env.CreateNamespace(ctx, "faults-rollout"); err != nil {
		t.Fatal(err)
	}
	if rf.policy, err = imagepolicy.Create(ctx, suite.Env.Client, rf.ns, "web", imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "1.0.0"}); err != nil {
		t.Fatal(err)
	}
	rf.record(ctx)
	for i := range f.opts.tenants {
		stage := restStage
		if i == 0 {
			stage = canaryStage
		}
		tn := f.newTenant(ctx, &tenant{
			policy:  rf.policy,
			labels:  map[string]string{stageLabel: stage},
			program: func(revision string) map[string]string { return program(rf.ns, revision, f.opts.objects) },
		})
		f.tenants = append(f.tenants, tn)
		rf.stage[tn.ns] = stage
		if i == 0 {
			rf.canary = tn
		} else {
			rf.rest = append(rf.rest, tn)
		}
	}
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))

	ro := &v1alpha1.ImageRollout{
		ObjectMeta: metav1.ObjectMeta{Namespace: rf.ns, Name: "web"},
		Spec: v1alpha1.ImageRolloutSpec{
			ImagePolicyRef: meta.LocalObjectReference{Name: "web"},
			Stages: []v1alpha1.RolloutStage{
				{Name: canaryStage, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{stageLabel: canaryStage}}, Bake: &metav1.Duration{Duration: bake}},
				{Name: restStage},
			},
		},
	}
	if err := suite.Env.Client.Create(ctx, ro); err != nil {
		t.Fatal(err)
	}
	rf.waitRollout("the rollout taking 1.0.0 as last good", func(ro *v1alpha1.ImageRollout) error {
		if ro.Status.LastGood.String() != "ghcr.io/org/web:1.0.0" || !conditions.IsTrue(ro, meta.ReadyCondition) {
			return fmt.Errorf("last good %q, Ready %q", ro.Status.LastGood.String(), conditions.GetMessage(ro, meta.ReadyCondition))
		}
		return rf.followersGiven(ctx, "ghcr.io/org/web:1.0.0")
	})
	return rf
}

// elect makes tag the policy's latestRef, as image-reflector-controller does, and returns
// the image, the rollout's new target.
func (rf *rolloutFleet) elect(tag string) string {
	rf.t.Helper()
	ref := imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: tag}
	if err := imagepolicy.SetLatest(context.Background(), suite.Env.Client, rf.policy, ref); err != nil {
		rf.t.Fatal(err)
	}
	return ref.Name + ":" + ref.Tag
}

// get reads the rollout.
func (rf *rolloutFleet) get(ctx context.Context) (*v1alpha1.ImageRollout, error) {
	ro := &v1alpha1.ImageRollout{}
	return ro, suite.Env.Client.Get(ctx, client.ObjectKey{Namespace: rf.ns, Name: "web"}, ro)
}

// waitRollout polls the rollout until check passes, failing the test after convergeTimeout.
func (rf *rolloutFleet) waitRollout(what string, check func(*v1alpha1.ImageRollout) error) *v1alpha1.ImageRollout {
	rf.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), convergeTimeout)
	defer cancel()
	var last error
	for {
		ro, err := rf.get(ctx)
		if err == nil {
			if err = check(ro); err == nil {
				return ro
			}
		}
		last = err
		select {
		case <-ctx.Done():
			rf.t.Fatalf("no %s after %s: %v (logs in %s)", what, convergeTimeout, last, rf.logDir)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitStage waits until the stage is in one of states for target.
func (rf *rolloutFleet) waitStage(target, stage string, states ...string) *v1alpha1.ImageRollout {
	rf.t.Helper()
	return rf.waitRollout(fmt.Sprintf("stage %s %s at %s", stage, strings.Join(states, " or "), target), func(ro *v1alpha1.ImageRollout) error {
		st := ro.StageStatus(stage)
		if ro.Status.Target.String() != target || st == nil || !slices.Contains(states, st.State) {
			return fmt.Errorf("target %s, stages %s", ro.Status.Target.String(), statesOf(ro.Status.Stages))
		}
		return nil
	})
}

// waitCompleted waits until the rollout completed target: every stage Succeeded, target
// the last good, Ready, and every tenant shown target, nothing held back.
func (rf *rolloutFleet) waitCompleted(target string) *v1alpha1.ImageRollout {
	rf.t.Helper()
	ctx := context.Background()
	return rf.waitRollout("completed rollout of "+target, func(ro *v1alpha1.ImageRollout) error {
		for _, st := range ro.Status.Stages {
			if st.State != v1alpha1.StageSucceeded {
				return fmt.Errorf("stages %s", statesOf(ro.Status.Stages))
			}
		}
		if ro.Status.LastGood.String() != target || !conditions.IsTrue(ro, meta.ReadyCondition) {
			return fmt.Errorf("last good %s, Ready %q", ro.Status.LastGood.String(), conditions.GetMessage(ro, meta.ReadyCondition))
		}
		return rf.followersGiven(ctx, target)
	})
}

// followersGiven checks that every tenant's KCLRun records image from the rollout, held
// back from nothing.
func (rf *rolloutFleet) followersGiven(ctx context.Context, image string) error {
	for _, tn := range rf.tenants {
		run := &v1alpha1.KCLRun{}
		if err := suite.Env.Client.Get(ctx, client.ObjectKey{Namespace: tn.ns, Name: "app"}, run); err != nil {
			return err
		}
		if len(run.Status.ImageRollouts) != 1 || run.Status.ImageRollouts[0].Image != image || run.Status.ImageRollouts[0].HeldBack != "" {
			return fmt.Errorf("%s was given %+v, want %s", tn.key(), run.Status.ImageRollouts, image)
		}
	}
	return nil
}

func statesOf(stages []v1alpha1.StageStatus) string {
	var s []string
	for _, st := range stages {
		s = append(s, st.Name+"="+st.State)
	}
	return strings.Join(s, " ")
}

// logStates logs the rollout's stages now and returns the rollout, nil if unread.
func (rf *rolloutFleet) logStates(when string) *v1alpha1.ImageRollout {
	rf.t.Helper()
	ro, err := rf.get(context.Background())
	if err != nil {
		rf.t.Logf("%s: reading the rollout: %v", when, err)
		return nil
	}
	rf.t.Logf("%s: target %s, last good %s, %s", when, ro.Status.Target.String(), ro.Status.LastGood.String(), statesOf(ro.Status.Stages))
	return ro
}

// record watches every ConfigMap and the rollout's namespace's ImageRollouts until ctx
// ends, keeping every version with its resourceVersion.
func (rf *rolloutFleet) record(ctx context.Context) {
	t := rf.t
	wc, err := client.NewWithWatch(suite.Env.Config, client.Options{Scheme: kube.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cms, err := wc.Watch(ctx, &corev1.ConfigMapList{})
	if err != nil {
		t.Fatal(err)
	}
	ros, err := wc.Watch(ctx, &v1alpha1.ImageRolloutList{}, client.InNamespace(rf.ns))
	if err != nil {
		t.Fatal(err)
	}
	ended := func(what string) {
		if ctx.Err() == nil {
			rf.mu.Lock()
			rf.watchEnded = append(rf.watchEnded, what)
			rf.mu.Unlock()
		}
	}
	go func() {
		defer cms.Stop()
		for e := range cms.ResultChan() {
			cm, ok := e.Object.(*corev1.ConfigMap)
			if !ok || e.Type == watch.Deleted || !strings.HasPrefix(cm.Name, "cm-") {
				continue
			}
			rv, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
			rf.mu.Lock()
			rf.applied = append(rf.applied, appliedImage{ns: cm.Namespace, name: cm.Name, image: cm.Data["image"], rev: cm.Data["rev"], rv: rv, at: time.Now()})
			rf.mu.Unlock()
		}
		ended("ConfigMaps")
	}()
	go func() {
		defer ros.Stop()
		for e := range ros.ResultChan() {
			ro, ok := e.Object.(*v1alpha1.ImageRollout)
			if !ok || ro.Name != "web" {
				continue
			}
			rv, _ := strconv.ParseInt(ro.ResourceVersion, 10, 64)
			rf.mu.Lock()
			rf.statuses = append(rf.statuses, rolloutStatus{
				rv: rv, at: time.Now(), target: ro.Status.Target.String(), lastGood: ro.Status.LastGood.String(),
				halted: ro.Status.Halted, stages: ro.Status.Stages,
			})
			rf.mu.Unlock()
		}
		ended("ImageRollouts")
	}()
}

// stageRank orders a stage's states for one target: a stage may go back from Baking to
// Progressing (a KCLRun left Ready), never further back.
var stageRank = map[string]int{
	v1alpha1.StagePending: 0, v1alpha1.StageProgressing: 1, v1alpha1.StageBaking: 1, v1alpha1.StageSucceeded: 2,
}

// checkRollout proves, from the record, that the rollout of target went as it must through
// whatever the fault did: the record is complete; no stage was skipped (no ConfigMap of a
// rest tenant held target before the write of the status in which canary Succeeded at
// target, and canary Succeeded only after its bake); the status was never reset (the
// target and last good never went back, no stage left Succeeded or was admitted twice, none
// failed or halted); and every tenant's ConfigMaps were seen at target. It logs the
// timeline.
func (rf *rolloutFleet) checkRollout(target string) {
	t := rf.t
	t.Helper()
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if len(rf.watchEnded) > 0 {
		t.Errorf("the record's watch of %s ended early: the record has gaps", strings.Join(rf.watchEnded, " and "))
	}
	statuses := append([]rolloutStatus(nil), rf.statuses...)
	sort.Slice(statuses, func(i, j int) bool { return statuses[i].rv < statuses[j].rv })
	var canaryPassed int64
	admittedAt := map[string]time.Time{}
	state := map[string]string{}
	elected, lastGood := false, ""
	for _, st := range statuses {
		if st.target != target {
			if elected {
				t.Errorf("rv %d: the target went from %s to %s", st.rv, target, st.target)
			}
			continue
		}
		if !elected {
			elected, lastGood = true, st.lastGood
			t.Logf("rv %d %s: target %s, last good %s", st.rv, st.at.Format("15:04:05.000"), target, st.lastGood)
		}
		if st.lastGood != lastGood {
			if st.lastGood != target {
				t.Errorf("rv %d: last good went from %s to %s", st.rv, lastGood, st.lastGood)
			}
			t.Logf("rv %d %s: last good %s", st.rv, st.at.Format("15:04:05.000"), st.lastGood)
			lastGood = st.lastGood
		}
		if st.halted {
			t.Errorf("rv %d: the rollout halted: %s", st.rv, statesOf(st.stages))
		}
		for _, s := range st.stages {
			if _, ok := stageRank[s.State]; !ok {
				t.Errorf("rv %d: stage %s %s: %s", st.rv, s.Name, s.State, s.Message)
				continue
			}
			if prev, ok := state[s.Name]; ok && stageRank[s.State] < stageRank[prev] {
				t.Errorf("rv %d: stage %s went back from %s to %s", st.rv, s.Name, prev, s.State)
			}
			if prev := state[s.Name]; prev != s.State {
				t.Logf("rv %d %s: stage %s %s %s", st.rv, st.at.Format("15:04:05.000"), s.Name, s.State, s.Message)
			}
			state[s.Name] = s.State
			if s.AdmittedAt != nil {
				if first, ok := admittedAt[s.Name]; ok && !first.Equal(s.AdmittedAt.Time) {
					t.Errorf("rv %d: stage %s admitted again at %s (first at %s)", st.rv, s.Name, s.AdmittedAt.Time, first)
				}
				admittedAt[s.Name] = s.AdmittedAt.Time
			}
			if s.Name == canaryStage && s.State == v1alpha1.StageSucceeded && canaryPassed == 0 {
				canaryPassed = st.rv
				// readyAt is rounded up and finishedAt down (the status keeps seconds):
				// their difference is at most the bake the canary really had.
				if s.ReadyAt == nil || s.FinishedAt == nil || s.FinishedAt.Sub(s.ReadyAt.Time) < rf.bake {
					t.Errorf("rv %d: stage canary passed without its %s bake: Ready at %v, finished at %v", st.rv, rf.bake, s.ReadyAt, s.FinishedAt)
				}
			}
		}
	}
	if canaryPassed == 0 {
		t.Errorf("stage canary never Succeeded at %s in the record", target)
	}
	if state[restStage] != v1alpha1.StageSucceeded || lastGood != target {
		t.Errorf("the record ends at stages %v, last good %s: not completed", state, lastGood)
	}

	applied := append([]appliedImage(nil), rf.applied...)
	sort.Slice(applied, func(i, j int) bool { return applied[i].rv < applied[j].rv })
	first := map[string]appliedImage{}
	for _, a := range applied {
		stage, ok := rf.stage[a.ns]
		if !ok || a.image != target {
			continue
		}
		if _, seen := first[a.ns]; !seen {
			first[a.ns] = a
			t.Logf("rv %d %s: %s (stage %s) first wrote %s (%s %s)", a.rv, a.at.Format("15:04:05.000"), a.ns, stage, target, a.name, a.rev)
		}
		if stage == restStage && a.rv < canaryPassed {
			t.Errorf("%s/%s (stage rest) held %s at rv %d, before stage canary passed (rv %d)", a.ns, a.name, target, a.rv, canaryPassed)
		}
	}
	for ns := range rf.stage {
		if _, ok := first[ns]; !ok {
			t.Errorf("no ConfigMap of %s was seen at %s", ns, target)
		}
	}
}

// faultLogged logs the rollout's stages at the fault's injection and before its recovery.
type faultLogged struct {
	fault.Fault
	rf *rolloutFleet
	// atInject, when set, checks the rollout as the fault is injected.
	atInject func(*v1alpha1.ImageRollout) error
}

func (l faultLogged) Inject(ctx context.Context) error {
	ro := l.rf.logStates("injecting " + l.Name())
	if l.atInject != nil && ro != nil {
		if err := l.atInject(ro); err != nil {
			return err
		}
	}
	return l.Fault.Inject(ctx)
}

func (l faultLogged) Recover(ctx context.Context) error {
	l.rf.logStates("recovering from " + l.Name())
	return l.Fault.Recover(ctx)
}
