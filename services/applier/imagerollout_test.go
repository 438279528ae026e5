package applier_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/services/watcher"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// rolloutT0 is the fake clock's start: a Wednesday, no freeze window open.
var rolloutT0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// rolloutWorld is one ImageRollout's world: a namespace holding the
// ImagePolicy, the rollout and the program's source, tenant namespaces with
// one KCLRun each (following the policy across namespaces), a watcher running rollouts on a fake clock
// (sharded by a label on this world's KCLRuns, so the suite's other tests
// see no watcher), and the record of every image applied and every rollout
// status, in the apiserver's order.
type rolloutWorld struct {
	t      testing.TB
	ns     string
	id     string
	clock  *clocktesting.FakeClock
	policy *imagev1.ImagePolicy
	// stages maps a KCLRun to the value of its stage label.
	stages map[string]string
	// tenants maps a KCLRun to its namespace: a tenant's own, as in a fleet.
	tenants map[string]string

	stopWatcher func()
	mu          sync.Mutex
	applied     []appliedImage
	statuses    []rolloutStatus
}

// appliedImage is one write of a KCLRun's ConfigMap, as the watch saw it.
type appliedImage struct {
	kclRun, image string
	rv            int64
	at            time.Time
}

// rolloutStatus is one write of the ImageRollout.
type rolloutStatus struct {
	rv     int64
	at     time.Time
	target string
	states map[string]string
}

const stageLabel = "rollout.example.com/stage"

// rolloutProgram applies a ConfigMap "web" carrying the image, and one named
// after the tag: a tag that is no valid name makes the apiserver refuse the apply.
func rolloutProgram(policyNS string) string {
	return fmt.Sprintf(`_tag = "1.0.0" # {"$imagepolicy": "%s:web:tag"}
_image = "ghcr.io/org/web:" + _tag
items = [
    {apiVersion = "v1", kind = "ConfigMap", metadata = {name = "web"}, data = {image = _image}}
    {apiVersion = "v1", kind = "ConfigMap", metadata = {name = "release-" + _tag}, data = {image = _image}}
]
`, policyNS)
}

func webImage(tag string) imagev1.ImageRef {
	return imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: tag}
}

// newRolloutWorld creates the policy at 1.0.0 and one KCLRun per entry of
// stages (name → stage label; "" for none), waits for them Ready at 1.0.0,
// and starts the watcher.
func newRolloutWorld(t testing.TB, stages map[string]string, mutate ...func(name string, k *v1alpha1.KCLRun)) *rolloutWorld {
	t.Helper()
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := &rolloutWorld{t: t, ns: newNamespace(t), clock: clocktesting.NewFakeClock(rolloutT0), stages: stages, tenants: map[string]string{}}
	w.id = w.ns
	var err error
	w.policy, err = imagepolicy.Create(ctx, env.Client, w.ns, "web", webImage("1.0.0"))
	g.Expect(err).NotTo(HaveOccurred())
	w.record(ctx)
	artifact := publishProgram(t, w.ns, "app", rolloutProgram(w.ns))
	for name, stage := range stages {
		tenant := newNamespace(t)
		w.tenants[name] = tenant
		createKCLRun(t, tenant, name, "app", func(k *v1alpha1.KCLRun) {
			k.Labels = map[string]string{"rollout-test": w.id}
			if stage != "" {
				k.Labels[stageLabel] = stage
			}
			k.Spec.SourceRef.Namespace = w.ns
			k.Spec.CommonMetadata = &v1alpha1.CommonMetadata{Labels: map[string]string{"rollout-test": w.id}}
			for _, m := range mutate {
				m(name, k)
			}
		})
	}
	for name := range stages {
		readyAt(t, w.tenants[name], name, artifact.Revision)
	}
	w.startWatcher()
	t.Cleanup(func() { w.stopWatcher() })
	return w
}

// startWatcher runs the world's watcher.
func (w *rolloutWorld) startWatcher() { w.stopWatcher = w.runWatcher() }

// runWatcher runs a watcher of this world's shard on the world's clock.
func (w *rolloutWorld) runWatcher() (stop func()) {
	t := w.t
	nc, err := nats.Connect()
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := watcher.DefaultConfig()
	cfg.MetricsAddr, cfg.HealthAddr = "0", "0"
	cfg.WatchLabelSelector = "rollout-test=" + w.id
	svc, err := watcher.New(cfg, watcher.Deps{RestConfig: env.Config, JetStream: js, Logger: logr.Discard(), Clock: w.clock})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = svc.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
		nc.Close()
	}
}

// createRollout creates the ImageRollout and waits for it to take the
// current election as last good.
func (w *rolloutWorld) createRollout(spec v1alpha1.ImageRolloutSpec) *v1alpha1.ImageRollout {
	w.t.Helper()
	spec.ImagePolicyRef = meta.LocalObjectReference{Name: "web"}
	ro := &v1alpha1.ImageRollout{ObjectMeta: objectMeta(w.ns, "web"), Spec: spec}
	NewWithT(w.t).Expect(env.Client.Create(context.Background(), ro)).To(Succeed())
	w.t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ro) })
	w.eventually(func(g Gomega, ro *v1alpha1.ImageRollout) {
		g.Expect(ro.Status.LastGood).NotTo(BeNil())
		g.Expect(readyOf(ro)).To(HaveField("Reason", v1alpha1.UpToDateReason))
	})
	// Its followers are reconciled once to record what it gives them.
	NewWithT(w.t).Eventually(func(g Gomega) {
		var runs v1alpha1.KCLRunList
		g.Expect(env.Client.List(context.Background(), &runs, client.MatchingLabels{"rollout-test": w.id})).To(Succeed())
		g.Expect(runs.Items).To(HaveLen(len(w.stages)))
		for _, run := range runs.Items {
			g.Expect(run.Status.ImageRollouts).To(ConsistOf(HaveField("Image", "ghcr.io/org/web:1.0.0")), run.Name)
		}
	}, 5*time.Minute, 200*time.Millisecond).Should(Succeed())
	return ro
}

// elect sets the policy's latestRef, as image-reflector-controller does.
func (w *rolloutWorld) elect(tag string) {
	w.t.Helper()
	NewWithT(w.t).Expect(imagepolicy.SetLatest(context.Background(), env.Client, w.policy, webImage(tag))).To(Succeed())
}

func (w *rolloutWorld) get(g Gomega) *v1alpha1.ImageRollout {
	ro := &v1alpha1.ImageRollout{}
	g.Expect(env.Client.Get(context.Background(), types.NamespacedName{Namespace: w.ns, Name: "web"}, ro)).To(Succeed())
	return ro
}

// eventually waits until check passes on the rollout.
func (w *rolloutWorld) eventually(check func(Gomega, *v1alpha1.ImageRollout)) *v1alpha1.ImageRollout {
	w.t.Helper()
	var ro *v1alpha1.ImageRollout
	NewWithT(w.t).Eventually(func(g Gomega) {
		ro = w.get(g)
		check(g, ro)
	}, 2*time.Minute, 100*time.Millisecond).Should(Succeed())
	return ro
}

// waitStates waits for the stages' states, as "canary=Baking early=Pending".
func (w *rolloutWorld) waitStates(want string) *v1alpha1.ImageRollout {
	w.t.Helper()
	return w.eventually(func(g Gomega, ro *v1alpha1.ImageRollout) {
		g.Expect(statesOf(ro)).To(Equal(want))
	})
}

func statesOf(ro *v1alpha1.ImageRollout) string {
	var s []string
	for _, st := range ro.Status.Stages {
		s = append(s, st.Name+"="+st.State)
	}
	return strings.Join(s, " ")
}

func readyOf(ro *v1alpha1.ImageRollout) *metav1.Condition {
	for i := range ro.Status.Conditions {
		if ro.Status.Conditions[i].Type == meta.ReadyCondition {
			return &ro.Status.Conditions[i]
		}
	}
	return nil
}

// kclRun reads a KCLRun of the world by name.
func (w *rolloutWorld) kclRun(g Gomega, name string) *v1alpha1.KCLRun {
	return getKCLRun(g, w.tenants[name], name)
}

// key is the KCLRun's "namespace/name", as the applier's tracker counts it.
func (w *rolloutWorld) key(name string) string { return w.tenants[name] + "/" + name }

// imageOf is the image of the KCLRun's ConfigMap as applied now.
func (w *rolloutWorld) imageOf(g Gomega, name string) string {
	run := w.kclRun(g, name)
	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(context.Background(), types.NamespacedName{Namespace: run.GetTargetNamespace(), Name: "web"}, cm)).To(Succeed())
	return cm.Data["image"]
}

// waitImages waits until every named KCLRun applied tag, Ready.
func (w *rolloutWorld) waitImages(tag string, names ...string) {
	w.t.Helper()
	NewWithT(w.t).Eventually(func(g Gomega) {
		for _, name := range names {
			g.Expect(w.imageOf(g, name)).To(Equal("ghcr.io/org/web:"+tag), name)
			g.Expect(readyCondition(w.kclRun(g, name))).To(HaveField("Status", metav1.ConditionTrue), name)
		}
	}, 2*time.Minute, 100*time.Millisecond).Should(Succeed())
}

// keepImages checks that the KCLRuns still apply tag, once their queue is quiet.
func (w *rolloutWorld) keepImages(tag string, names ...string) {
	w.t.Helper()
	for _, name := range names {
		waitQuiet(w.t, w.key(name))
	}
	NewWithT(w.t).Consistently(func(g Gomega) {
		for _, name := range names {
			g.Expect(w.imageOf(g, name)).To(Equal("ghcr.io/org/web:"+tag), name)
		}
	}, "1s", "100ms").Should(Succeed())
}

// record watches the ConfigMaps "web" this world's KCLRuns apply and the
// ImageRollout, keeping every version with its resourceVersion: one etcd
// orders them all.
func (w *rolloutWorld) record(ctx context.Context) {
	t := w.t
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cms, err := c.Watch(ctx, &corev1.ConfigMapList{}, client.MatchingLabels{"rollout-test": w.id})
	if err != nil {
		t.Fatal(err)
	}
	ros, err := c.Watch(ctx, &v1alpha1.ImageRolloutList{}, client.InNamespace(w.ns))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer cms.Stop()
		for e := range cms.ResultChan() {
			cm, ok := e.Object.(*corev1.ConfigMap)
			if !ok || e.Type == watch.Deleted || cm.Name != "web" {
				continue
			}
			rv, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
			w.mu.Lock()
			w.applied = append(w.applied, appliedImage{kclRun: cm.Labels["krm.kcl.dev.fluxcd/name"], image: cm.Data["image"], rv: rv, at: time.Now()})
			w.mu.Unlock()
		}
	}()
	go func() {
		defer ros.Stop()
		for e := range ros.ResultChan() {
			ro, ok := e.Object.(*v1alpha1.ImageRollout)
			if !ok {
				continue
			}
			rv, _ := strconv.ParseInt(ro.ResourceVersion, 10, 64)
			st := rolloutStatus{rv: rv, at: time.Now(), target: ro.Status.Target.String(), states: map[string]string{}}
			for _, s := range ro.Status.Stages {
				st.states[s.Name] = s.State
			}
			w.mu.Lock()
			w.statuses = append(w.statuses, st)
			w.mu.Unlock()
		}
	}()
}

// checkStageOrder proves that no KCLRun of a stage held target before the
// stage before it passed: every write of target into a KCLRun's ConfigMap
// comes after the first rollout status in which the previous stage
// Succeeded at target. It logs the timeline.
func (w *rolloutWorld) checkStageOrder(target string, order []string) {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	passed := map[string]int64{}
	for _, st := range w.statuses {
		for name, state := range st.states {
			if _, ok := passed[name]; !ok && st.target == target && state == v1alpha1.StageSucceeded {
				passed[name] = st.rv
			}
		}
	}
	index := map[string]int{}
	for i, s := range order {
		index[s] = i
	}
	applied := append([]appliedImage(nil), w.applied...)
	sort.Slice(applied, func(i, j int) bool { return applied[i].rv < applied[j].rv })
	seen := 0
	for _, a := range applied {
		w.t.Logf("rv %d %s: %s applied %s", a.rv, a.at.Format("15:04:05.000"), a.kclRun, a.image)
		if a.image != target {
			continue
		}
		seen++
		k := index[w.stages[a.kclRun]]
		if w.stages[a.kclRun] == "" {
			k = len(order) - 1
		}
		if k == 0 {
			continue
		}
		prev := order[k-1]
		if rv, ok := passed[prev]; !ok || a.rv < rv {
			w.t.Errorf("%s (stage %s) applied %s at rv %d, before stage %s passed (rv %d, %v)", a.kclRun, order[k], target, a.rv, prev, rv, ok)
		}
	}
	if seen == 0 {
		w.t.Errorf("no KCLRun was seen applying %s", target)
	}
}

// Stages go in order, each gated by the one before: canary first, early only
// after canary baked 10 minutes (of the fake clock) Ready at the target,
// then the rest (no selector) at once. Every applied image is recorded
// with its resourceVersion: none of stage k+1 holds the target before stage
// k passed. Today's code applies the election to all four within a second.
func TestImageRolloutStageOrder(t *testing.T) {
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "early-1": "early", "rest-1": "", "rest-2": ""})
	w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{
		{Name: "canary", Selector: stageSelector("canary"), Bake: &metav1.Duration{Duration: 10 * time.Minute}},
		{Name: "early", Selector: stageSelector("early")},
		{Name: "rest"},
	}})
	target := "ghcr.io/org/web:2.0.0"
	w.elect("2.0.0")
	w.waitImages("2.0.0", "canary-1")
	ro := w.waitStates("canary=Baking early=Pending rest=Pending")
	g := NewWithT(t)
	g.Expect(ro.Status.Target.String()).To(Equal(target))
	g.Expect(ro.Status.LastGood.String()).To(Equal("ghcr.io/org/web:1.0.0"))
	w.keepImages("1.0.0", "early-1", "rest-1", "rest-2")
	// What is held back is shown by a status write the rollout asks for once
	// the canary bakes (after the applies), so it comes a moment later.
	g.Eventually(func(g Gomega) {
		g.Expect(w.kclRun(g, "rest-1").Status.ImageRollouts).To(ConsistOf(And(
			HaveField("Rollout", w.ns+"/web"), HaveField("Stage", "rest"),
			HaveField("Image", "ghcr.io/org/web:1.0.0"), HaveField("HeldBack", target))))
	}, "1m").Should(Succeed())

	w.clock.Step(9 * time.Minute)
	w.keepImages("1.0.0", "early-1")
	w.clock.Step(time.Minute)
	w.waitImages("2.0.0", "early-1", "rest-1", "rest-2")
	ro = w.waitStates("canary=Succeeded early=Succeeded rest=Succeeded")
	g.Expect(ro.Status.LastGood.String()).To(Equal(target))
	g.Expect(readyOf(ro)).To(And(HaveField("Status", metav1.ConditionTrue), HaveField("Message", ContainSubstring(target))))
	g.Expect(ro.StageStatus("early").Total).To(BeEquivalentTo(1))
	g.Expect(ro.StageStatus("rest").Ready).To(BeEquivalentTo(2))
	g.Eventually(func(g Gomega) {
		g.Expect(w.kclRun(g, "rest-1").Status.ImageRollouts).To(ConsistOf(And(HaveField("Image", target), HaveField("HeldBack", ""))))
	}, "1m").Should(Succeed())
	w.checkStageOrder(target, []string{"canary", "early", "rest"})
	w.expectEvents(v1alpha1.StageAdmittedReason, v1alpha1.StagePassedReason, v1alpha1.RolloutCompletedReason)
	assertNoOverlap(t)
}

func stageSelector(stage string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{stageLabel: stage}}
}

// expectEvents waits for Kubernetes events of these reasons on the rollout,
// each naming the image.
func (w *rolloutWorld) expectEvents(reasons ...string) {
	w.t.Helper()
	NewWithT(w.t).Eventually(func(g Gomega) {
		var list corev1.EventList
		g.Expect(env.Client.List(context.Background(), &list, client.InNamespace(w.ns))).To(Succeed())
		got := map[string]bool{}
		for _, e := range list.Items {
			if e.InvolvedObject.Kind == v1alpha1.ImageRolloutKind {
				got[e.Reason] = true
			}
		}
		for _, r := range reasons {
			g.Expect(got).To(HaveKey(r))
		}
	}, "1m", "200ms").Should(Succeed())
}
