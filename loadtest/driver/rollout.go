package driver

import (
	"context"
	"fmt"
	"sync"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/report"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

var rolloutResource = schema.GroupVersionResource{Group: "krm.kcl.dev.fluxcd", Version: "v1alpha1", Resource: "imagerollouts"}

// rolloutName names the ImageRollout of the shared policy.
const rolloutName = "agent"

// rolloutTag is the image the scenario elects.
const rolloutTag = "2.0.0"

// rolloutStages are the stages in order: 1 % canary, 9 % early, the rest
// (10 / 90 / 900 at N=1,000, 1 / 9 / 90 at N=100, as the benchmark).
var rolloutStages = []string{"canary", "early", "rest"}

// minRolloutSize gives every stage a KCLRun: an empty one is bad input.
const minRolloutSize = 3

// stageOf is the stage of the tenant with index (1-based) among n.
func stageOf(index, n int) string {
	canary := max(1, n/100)
	early := max(canary+1, n/10)
	switch {
	case index <= canary:
		return rolloutStages[0]
	case index <= early:
		return rolloutStages[1]
	default:
		return rolloutStages[2]
	}
}

// sideTenants are a side's tenants; with Rollout each has its stage, so
// its program follows the shared policy too (the Kustomization twins then
// apply the same agent container).
func (d *driver) sideTenants(side tenant.Side, n int) []tenant.Tenant {
	ts := tenants(side, n)
	for i := range ts {
		ts[i].NoService = d.opts.NoService
	}
	if d.opts.Rollout {
		for i := range ts {
			ts[i].Stage = stageOf(ts[i].Index, n)
		}
	}
	return ts
}

// prepareRollout creates the shared ImagePolicy, at the agent's first tag,
// and the ImageRollout staging its elections by the KCLRuns' stage label,
// bake 0. It exists before the KCLRuns, so it governs the whole first sync.
func prepareRollout(ctx context.Context, c client.Client) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant.RolloutNamespace}}
	if err := c.Create(ctx, ns); err != nil {
		return fmt.Errorf("creating namespace %s: %w", tenant.RolloutNamespace, err)
	}
	if _, err := imagepolicy.Create(ctx, c, tenant.RolloutNamespace, tenant.AgentPolicy, imagev1.ImageRef{Name: tenant.AgentRepository, Tag: tenant.AgentFirstTag}); err != nil {
		return err
	}
	ro := &v1alpha1.ImageRollout{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenant.RolloutNamespace, Name: rolloutName},
		Spec:       v1alpha1.ImageRolloutSpec{ImagePolicyRef: meta.LocalObjectReference{Name: tenant.AgentPolicy}},
	}
	for i, name := range rolloutStages {
		st := v1alpha1.RolloutStage{Name: name}
		if i < len(rolloutStages)-1 { // the last takes every other follower
			st.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{tenant.StageLabel: name}}
		}
		ro.Spec.Stages = append(ro.Spec.Stages, st)
	}
	if err := c.Create(ctx, ro); err != nil {
		return fmt.Errorf("creating ImageRollout %s/%s: %w", ro.Namespace, ro.Name, err)
	}
	return nil
}

// rolloutTracker follows the rollout and its KCLRuns from informers: when
// the rollout settled at the first election, then, from the election, when
// the rollout named the target, admitted and passed each stage and
// succeeded, and when each KCLRun was first Ready at the target.
type rolloutTracker struct {
	mu sync.Mutex
	// stageIndex is each follower's stage by its namespace; counts per stage.
	stageIndex map[string]int
	counts     []int

	settled   chan struct{}
	settledAt time.Time

	start            time.Time // the election
	target           string
	targetSeen       bool
	targetAt         time.Duration
	admitted, passed map[int]time.Duration
	readyAt          map[string]time.Duration
	succeeded        bool
	succeededAt      time.Duration
	done             chan struct{}
	doneClosed       bool
	// first is the agent's first election; policyKey the shared policy as
	// status.imageRollouts names it.
	first, policyKey string
}

func newRolloutTracker(ts []tenant.Tenant) *rolloutTracker {
	t := &rolloutTracker{
		stageIndex: map[string]int{},
		counts:     make([]int, len(rolloutStages)),
		settled:    make(chan struct{}),
		admitted:   map[int]time.Duration{},
		passed:     map[int]time.Duration{},
		readyAt:    map[string]time.Duration{},
		done:       make(chan struct{}),
		first:      tenant.AgentImage(tenant.AgentFirstTag),
		policyKey:  tenant.RolloutNamespace + "/" + tenant.AgentPolicy,
	}
	for _, tn := range ts {
		for i, name := range rolloutStages {
			if tn.Stage == name {
				t.stageIndex[tn.Namespace()] = i
				t.counts[i]++
			}
		}
	}
	return t
}

// begin marks the election of target.
func (t *rolloutTracker) begin(target string) {
	t.mu.Lock()
	t.start, t.target = time.Now(), target
	t.mu.Unlock()
}

func (t *rolloutTracker) observeRollout(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GetNamespace() != tenant.RolloutNamespace || u.GetName() != rolloutName {
		return
	}
	var ro v1alpha1.ImageRollout
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ro); err != nil {
		return
	}
	ready := apimeta.FindStatusCondition(ro.Status.Conditions, meta.ReadyCondition)
	upToDate := ready != nil && ready.Status == metav1.ConditionTrue && ro.Status.ObservedGeneration == ro.Generation
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.start.IsZero() {
		if t.settledAt.IsZero() && upToDate && ro.Status.LastGood.String() == t.first && t.countsMatch(ro.Status.Stages) {
			t.settledAt = time.Now()
			close(t.settled)
		}
		return
	}
	at := time.Since(t.start)
	if !t.targetSeen && ro.Status.Target.String() == t.target {
		t.targetSeen, t.targetAt = true, at
	}
	for _, st := range ro.Status.Stages {
		i := stageIndexOf(st.Name)
		if i < 0 || st.Image.String() != t.target {
			continue
		}
		if _, seen := t.admitted[i]; !seen && st.State != v1alpha1.StagePending {
			t.admitted[i] = at
		}
		if _, seen := t.passed[i]; !seen && st.State == v1alpha1.StageSucceeded {
			t.passed[i] = at
		}
	}
	if !t.succeeded && upToDate && ro.Status.LastGood.String() == t.target {
		t.succeeded, t.succeededAt = true, at
		// The last stage passes with the completion, whose write clears the
		// stages' images (the target is last good now): it is never seen
		// Succeeded at the target.
		for i := range rolloutStages {
			if _, seen := t.passed[i]; !seen {
				t.passed[i] = at
			}
		}
	}
	t.checkDone()
}

// countsMatch: every stage counts the KCLRuns the driver labelled for it.
func (t *rolloutTracker) countsMatch(stages []v1alpha1.StageStatus) bool {
	if len(stages) != len(t.counts) {
		return false
	}
	for _, st := range stages {
		if i := stageIndexOf(st.Name); i < 0 || int(st.Total) != t.counts[i] {
			return false
		}
	}
	return true
}

func stageIndexOf(name string) int {
	for i, s := range rolloutStages {
		if s == name {
			return i
		}
	}
	return -1
}

// observeKCLRun records a follower first Ready at the target, which the
// applier writes with the verdict in status.imageRollouts.
func (t *rolloutTracker) observeKCLRun(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, follows := t.stageIndex[u.GetNamespace()]; !follows || t.start.IsZero() {
		return
	}
	if _, seen := t.readyAt[u.GetNamespace()]; seen || !isReady(u) {
		return
	}
	given, _, _ := unstructured.NestedSlice(u.Object, "status", "imageRollouts")
	for _, g := range given {
		m, _ := g.(map[string]any)
		if m["policy"] == t.policyKey && m["image"] == t.target && (m["heldBack"] == nil || m["heldBack"] == "") {
			t.readyAt[u.GetNamespace()] = time.Since(t.start)
			t.checkDone()
			return
		}
	}
}

func (t *rolloutTracker) checkDone() {
	if !t.doneClosed && t.succeeded && len(t.readyAt) == len(t.stageIndex) {
		t.doneClosed = true
		close(t.done)
	}
}

// watchRollout starts informers on the ImageRollouts and the KCLRuns feeding t.
func watchRollout(ctx context.Context, cfg *rest.Config, t *rolloutTracker) error {
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	f := dynamicinformer.NewDynamicSharedInformerFactory(dc, 0)
	var synced []cache.InformerSynced
	for gvr, fn := range map[schema.GroupVersionResource]func(any){rolloutResource: t.observeRollout, kclRunResource: t.observeKCLRun} {
		inf := f.ForResource(gvr).Informer()
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: fn, UpdateFunc: func(_, obj any) { fn(obj) }}); err != nil {
			return fmt.Errorf("watching %s: %w", gvr.Resource, err)
		}
		synced = append(synced, inf.HasSynced)
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return fmt.Errorf("syncing the rollout informers: %w", ctx.Err())
	}
	return nil
}

// appliedGrace bounds the wait for Deployments seen applied once the
// rollout is done: each was applied before its KCLRun turned Ready, only
// its informer may lag.
const appliedGrace = 5 * time.Second

// rollout elects rolloutTag on the shared policy once the rollout settled
// (Ready at the first election, every follower counted in its stage) and
// follows the waves: the canary's Deployments applied, each stage admitted,
// Ready and passed, the rollout succeeded. firstSyncEnd is when the KCLRuns
// were all Ready.
func (d *driver) rollout(ctx context.Context, cl *cluster, ts []tenant.Tenant, tr *rolloutTracker, images *changeWaiter, firstSyncEnd time.Time) (*report.Rollout, error) {
	c := cl.client
	target := tenant.AgentImage(rolloutTag)
	out := &report.Rollout{Target: target}
	deadline := time.After(d.syncTimeoutFor(len(ts)))
	select {
	case <-tr.settled:
	case <-deadline:
		return out, fmt.Errorf("the ImageRollout did not settle at %s with %v KCLRuns in its stages within %s", tr.first, tr.counts, d.syncTimeoutFor(len(ts)))
	case <-ctx.Done():
		return out, ctx.Err()
	}
	tr.mu.Lock()
	out.SettleSeconds = max(0, tr.settledAt.Sub(firstSyncEnd).Seconds())
	tr.mu.Unlock()

	applied := make(map[string]<-chan time.Time, len(ts))
	for _, t := range ts {
		applied[t.Namespace()] = images.expect(t.Namespace(), target)
	}
	p := &imagev1.ImagePolicy{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: tenant.RolloutNamespace, Name: tenant.AgentPolicy}, p); err != nil {
		return out, fmt.Errorf("reading ImagePolicy %s/%s: %w", tenant.RolloutNamespace, tenant.AgentPolicy, err)
	}
	before, err := apiserverRequests(ctx, cl)
	if err != nil {
		return out, err
	}
	tr.begin(target)
	if err := imagepolicy.SetLatest(ctx, c, p, imagev1.ImageRef{Name: tenant.AgentRepository, Tag: rolloutTag}); err != nil {
		return out, err
	}
	select {
	case <-tr.done:
		out.Converged = true
	case <-deadline:
	case <-ctx.Done():
		return out, ctx.Err()
	}

	after, err := apiserverRequests(ctx, cl)
	if err != nil {
		return out, err
	}
	out.Requests = map[string]float64{}
	for k, v := range after {
		if delta := v - before[k]; delta > 0 {
			out.Requests[k] = delta
		}
	}
	tr.mu.Lock()
	start := tr.start
	tr.mu.Unlock()
	appliedAt := map[string]time.Duration{}
	grace := time.After(appliedGrace)
collect:
	for ns, ch := range applied {
		select {
		case at := <-ch:
			appliedAt[ns] = at.Sub(start)
		case <-grace:
			break collect
		case <-ctx.Done():
			return out, ctx.Err()
		}
	}
	for ns := range applied {
		if _, ok := appliedAt[ns]; !ok {
			select { // it may have come after the grace ran out
			case at := <-applied[ns]:
				appliedAt[ns] = at.Sub(start)
			default:
				images.cancel(ns)
			}
		}
	}

	tr.mu.Lock()
	defer tr.mu.Unlock()
	out.TargetSeconds, out.SucceededSeconds = tr.targetAt.Seconds(), tr.succeededAt.Seconds()
	if !tr.succeeded {
		out.SucceededSeconds = time.Since(start).Seconds()
	}
	stages := make([]report.RolloutStage, len(rolloutStages))
	for i, name := range rolloutStages {
		stages[i] = report.RolloutStage{Name: name, KCLRuns: tr.counts[i], AdmittedSeconds: tr.admitted[i].Seconds(), PassedSeconds: tr.passed[i].Seconds()}
	}
	var canary []float64
	for ns, i := range tr.stageIndex {
		st := &stages[i]
		if at, ok := appliedAt[ns]; ok {
			st.Applied++
			st.AppliedSeconds = max(st.AppliedSeconds, at.Seconds())
			if i == 0 {
				canary = append(canary, at.Seconds())
			}
			if admitted, seen := tr.admitted[i]; !seen || at < admitted {
				out.EarlyApplies++
			}
		}
		if at, ok := tr.readyAt[ns]; ok {
			st.Ready++
			st.ReadySeconds = max(st.ReadySeconds, at.Seconds())
		}
	}
	for i := 1; i < len(stages); i++ {
		stages[i].GateSeconds = stages[i].ReadySeconds - stages[i-1].PassedSeconds
	}
	out.Stages = stages
	out.CanaryApplied = report.NewLatency(canary, tr.counts[0]-len(canary))
	return out, nil
}
