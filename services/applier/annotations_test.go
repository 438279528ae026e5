package applier_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// The per-object annotations of kustomize-controller, each on objects the
// KCLRun already owns (in its inventory) and on objects it meets for the
// first time (outside it), on the desired and on the live object.
const (
	ssaAnnotation       = "kustomize.toolkit.fluxcd.io/ssa"
	pruneAnnotation     = "kustomize.toolkit.fluxcd.io/prune"
	reconcileAnnotation = "kustomize.toolkit.fluxcd.io/reconcile"
	forceAnnotation     = "kustomize.toolkit.fluxcd.io/force"
	ownerLabel          = "krm.kcl.dev.fluxcd/name"
)

func value(v string) map[string]string { return map[string]string{"value": v} }

func annotated(key, v string) map[string]string { return map[string]string{key: v} }

// ssa: Ignore skips the object in apply and prune: one marked in the program
// is never created, nor changed once owned; one marked on the cluster is
// neither overwritten, nor restored after an edit, nor pruned.
func TestSSAIgnore(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	createLiveConfigMap(t, ns, "live-ignored", value("theirs"), annotated(ssaAnnotation, "Ignore"))
	rev1 := publishProgram(t, ns, "app", programOf(
		configMapManifest("new-ignored", value("ours"), annotated(ssaAnnotation, "Ignore")),
		configMapManifest("live-ignored", value("ours"), nil),
		configMapManifest("managed", value("1"), nil),
		configMapManifest("marked", value("1"), nil),
	))
	createKCLRun(t, ns, "ignore", "app")
	readyAt(t, ns, "ignore", rev1.Revision)

	_, found := liveConfigMap(g, ns, "new-ignored")
	g.Expect(found).To(BeFalse(), "a desired object marked ssa: Ignore was created")
	live, _ := liveConfigMap(g, ns, "live-ignored")
	g.Expect(live.Data).To(Equal(value("theirs")), "a live object marked ssa: Ignore was overwritten")
	g.Expect(live.Labels).NotTo(HaveKey(ownerLabel))

	// An operator marks an owned object and edits it: the drift is kept.
	editConfigMap(t, ns, "managed", "kubectl-edit", func(cm *corev1.ConfigMap) {
		cm.Annotations = annotated(ssaAnnotation, "Ignore")
		cm.Data = value("edited")
	})
	requestAndWait(t, ns, "ignore", reconcilerequest.ReasonDriftDetected)
	managed, _ := liveConfigMap(g, ns, "managed")
	g.Expect(managed.Data).To(Equal(value("edited")))

	// The program marks an owned object and changes it, and drops the one
	// marked on the cluster: neither is touched.
	rev2 := publishProgram(t, ns, "app", programOf(
		configMapManifest("live-ignored", value("ours"), nil),
		configMapManifest("marked", value("2"), annotated(ssaAnnotation, "Ignore")),
	))
	request(t, ns, "ignore", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "ignore", rev2.Revision)
	marked, _ := liveConfigMap(g, ns, "marked")
	g.Expect(marked.Data).To(Equal(value("1")), "an owned object marked ssa: Ignore was applied")
	managed, found = liveConfigMap(g, ns, "managed")
	g.Expect(found).To(BeTrue(), "an object marked ssa: Ignore was pruned")
	g.Expect(managed.Data).To(Equal(value("edited")))
	assertNoOverlap(t)
}

// ssa: IfNotPresent creates the object when absent and never patches it
// afterwards, whether it was created by the KCLRun or found on the cluster.
func TestSSAIfNotPresent(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	createLiveConfigMap(t, ns, "present", value("theirs"), nil)
	rev1 := publishProgram(t, ns, "app", programOf(
		configMapManifest("absent", value("1"), annotated(ssaAnnotation, "IfNotPresent")),
		configMapManifest("present", value("1"), annotated(ssaAnnotation, "IfNotPresent")),
	))
	createKCLRun(t, ns, "once", "app")
	readyAt(t, ns, "once", rev1.Revision)
	absent, found := liveConfigMap(g, ns, "absent")
	g.Expect(found).To(BeTrue())
	g.Expect(absent.Data).To(Equal(value("1")))
	present, _ := liveConfigMap(g, ns, "present")
	g.Expect(present.Data).To(Equal(value("theirs")))

	rev2 := publishProgram(t, ns, "app", programOf(
		configMapManifest("absent", value("2"), annotated(ssaAnnotation, "IfNotPresent")),
		configMapManifest("present", value("2"), annotated(ssaAnnotation, "IfNotPresent")),
	))
	request(t, ns, "once", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "once", rev2.Revision)
	absent, _ = liveConfigMap(g, ns, "absent")
	g.Expect(absent.Data).To(Equal(value("1")))
	present, _ = liveConfigMap(g, ns, "present")
	g.Expect(present.Data).To(Equal(value("theirs")))
	assertNoOverlap(t)
}

// ssa: Merge applies the object without taking over the fields other
// managers own: kubectl's keys stay, where an unmarked object loses them.
func TestSSAMerge(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	kubectlData := map[string]string{"value": "theirs", "extra": "kept"}
	createLiveConfigMap(t, ns, "merged", kubectlData, nil)
	createLiveConfigMap(t, ns, "taken", kubectlData, nil)
	rev := publishProgram(t, ns, "app", programOf(
		configMapManifest("merged", value("ours"), annotated(ssaAnnotation, "Merge")),
		configMapManifest("taken", value("ours"), nil),
		configMapManifest("owned-merged", value("ours"), annotated(ssaAnnotation, "Merge")),
		configMapManifest("owned-taken", value("ours"), nil),
	))
	createKCLRun(t, ns, "merge", "app")
	readyAt(t, ns, "merge", rev.Revision)

	merged, _ := liveConfigMap(g, ns, "merged")
	g.Expect(merged.Data).To(Equal(map[string]string{"value": "ours", "extra": "kept"}))
	taken, _ := liveConfigMap(g, ns, "taken")
	g.Expect(taken.Data).To(Equal(value("ours")))

	// kubectl adds a key to objects the KCLRun owns; the drift reconcile
	// takes it back from the unmarked one only.
	for _, name := range []string{"owned-merged", "owned-taken"} {
		g.Eventually(func() error {
			cm, _ := liveConfigMap(g, ns, name)
			cm.Data["extra"] = "kept"
			return env.Client.Update(context.Background(), cm, client.FieldOwner("kubectl"))
		}, "30s", "100ms").Should(Succeed())
	}
	request(t, ns, "merge", reconcilerequest.ReasonDriftDetected)
	g.Eventually(func(g Gomega) {
		cm, _ := liveConfigMap(g, ns, "owned-taken")
		g.Expect(cm.Data).To(Equal(value("ours")))
	}, "1m", "200ms").Should(Succeed())
	ownedMerged, _ := liveConfigMap(g, ns, "owned-merged")
	g.Expect(ownedMerged.Data).To(Equal(map[string]string{"value": "ours", "extra": "kept"}))
	assertNoOverlap(t)
}

// prune: disabled keeps an object that leaves the program, and one left
// behind by a deleted KCLRun, whether the program or an operator marked it.
func TestPruneDisabled(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	rev1 := publishProgram(t, ns, "app", programOf(
		configMapManifest("marked", value("1"), annotated(pruneAnnotation, "disabled")),
		configMapManifest("live-marked", value("1"), nil),
		configMapManifest("plain", value("1"), nil),
	))
	createKCLRun(t, ns, "keep", "app")
	readyAt(t, ns, "keep", rev1.Revision)
	// Marked on the cluster by a tool of its own: an annotation written by
	// kubectl would be taken over and dropped by the next apply, as in Flux.
	editConfigMap(t, ns, "live-marked", "platform-operator", func(cm *corev1.ConfigMap) {
		cm.Annotations = annotated(pruneAnnotation, "disabled")
	})

	rev2 := publishProgram(t, ns, "app", programOf(
		configMapManifest("kept-on-delete", value("1"), annotated(pruneAnnotation, "disabled")),
		configMapManifest("deleted-on-delete", value("1"), nil),
	))
	request(t, ns, "keep", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "keep", rev2.Revision)
	for name, kept := range map[string]bool{"marked": true, "live-marked": true, "plain": false} {
		_, found := liveConfigMap(g, ns, name)
		g.Expect(found).To(Equal(kept), name)
	}

	g.Expect(env.Client.Delete(ctx, &v1alpha1.KCLRun{ObjectMeta: objectMeta(ns, "keep")})).To(Succeed())
	request(t, ns, "keep", reconcilerequest.ReasonDeleting)
	g.Eventually(func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "keep"}, &v1alpha1.KCLRun{}) != nil
	}, "1m", "200ms").Should(BeTrue())
	_, found := liveConfigMap(g, ns, "kept-on-delete")
	g.Expect(found).To(BeTrue())
	_, found = liveConfigMap(g, ns, "deleted-on-delete")
	g.Expect(found).To(BeFalse())
	assertNoOverlap(t)
}

// reconcile: disabled leaves the object alone: marked in the program, it is
// never created nor changed; marked on the cluster, it is not overwritten
// when the KCLRun meets it (the direct-create path included), its edits are
// not undone, and it is not pruned.
func TestReconcileDisabled(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	createLiveConfigMap(t, ns, "live-disabled", value("theirs"), annotated(reconcileAnnotation, "disabled"))
	rev1 := publishProgram(t, ns, "app", programOf(
		configMapManifest("new-disabled", value("ours"), annotated(reconcileAnnotation, "disabled")),
		configMapManifest("live-disabled", value("ours"), nil),
		configMapManifest("managed", value("1"), nil),
		configMapManifest("watched", value("1"), nil),
		configMapManifest("marked", value("1"), nil),
	))
	createKCLRun(t, ns, "off", "app")
	readyAt(t, ns, "off", rev1.Revision)
	_, found := liveConfigMap(g, ns, "new-disabled")
	g.Expect(found).To(BeFalse(), "a desired object marked reconcile: disabled was created")
	live, _ := liveConfigMap(g, ns, "live-disabled")
	g.Expect(live.Data).To(Equal(value("theirs")), "a live object marked reconcile: disabled was overwritten")
	g.Expect(live.Labels).NotTo(HaveKey(ownerLabel))

	// An operator disables one owned object and edits it and another: only
	// the other is restored.
	editConfigMap(t, ns, "managed", "kubectl-edit", func(cm *corev1.ConfigMap) {
		cm.Annotations = annotated(reconcileAnnotation, "disabled")
		cm.Data = value("edited")
	})
	editConfigMap(t, ns, "watched", "kubectl-edit", func(cm *corev1.ConfigMap) { cm.Data = value("edited") })
	request(t, ns, "off", reconcilerequest.ReasonDriftDetected)
	g.Eventually(func(g Gomega) {
		cm, _ := liveConfigMap(g, ns, "watched")
		g.Expect(cm.Data).To(Equal(value("1")))
	}, "1m", "200ms").Should(Succeed())
	managed, _ := liveConfigMap(g, ns, "managed")
	g.Expect(managed.Data).To(Equal(value("edited")))

	// The program disables an owned object and changes it, and drops the
	// one disabled on the cluster: neither is touched.
	rev2 := publishProgram(t, ns, "app", programOf(
		configMapManifest("marked", value("2"), annotated(reconcileAnnotation, "disabled")),
	))
	request(t, ns, "off", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "off", rev2.Revision)
	marked, _ := liveConfigMap(g, ns, "marked")
	g.Expect(marked.Data).To(Equal(value("1")), "an owned object marked reconcile: disabled was applied")
	managed, found = liveConfigMap(g, ns, "managed")
	g.Expect(found).To(BeTrue(), "an object marked reconcile: disabled was pruned")
	g.Expect(managed.Data).To(Equal(value("edited")))
	_, found = liveConfigMap(g, ns, "watched")
	g.Expect(found).To(BeFalse())
	assertNoOverlap(t)
}

// force: enabled recreates an object whose change hits an immutable field,
// one met on the cluster and one owned, marked in the program or on the cluster.
func TestForceEnabled(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	immutable := func(name, v string, annotations map[string]string) manifest {
		m := configMapManifest(name, value(v), annotations)
		m["immutable"] = true
		return m
	}
	existing := &corev1.ConfigMap{
		ObjectMeta: objectMeta(ns, "outside"),
		Data:       value("theirs"),
		Immutable:  ptr.To(true),
	}
	g.Expect(env.Client.Create(ctx, existing, client.FieldOwner("kubectl"))).To(Succeed())
	rev1 := publishProgram(t, ns, "app", programOf(
		immutable("outside", "ours", annotated(forceAnnotation, "enabled")),
		immutable("inside", "1", annotated(forceAnnotation, "enabled")),
		immutable("live-forced", "1", nil),
	))
	createKCLRun(t, ns, "force", "app")
	readyAt(t, ns, "force", rev1.Revision)
	outside, _ := liveConfigMap(g, ns, "outside")
	g.Expect(outside.UID).NotTo(Equal(existing.UID))
	g.Expect(outside.Data).To(Equal(value("ours")))
	inside, _ := liveConfigMap(g, ns, "inside")
	editConfigMap(t, ns, "live-forced", "platform-operator", func(cm *corev1.ConfigMap) {
		cm.Annotations = annotated(forceAnnotation, "enabled")
	})
	liveForced, _ := liveConfigMap(g, ns, "live-forced")

	rev2 := publishProgram(t, ns, "app", programOf(
		immutable("outside", "ours", annotated(forceAnnotation, "enabled")),
		immutable("inside", "2", annotated(forceAnnotation, "enabled")),
		immutable("live-forced", "2", nil),
	))
	request(t, ns, "force", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "force", rev2.Revision)
	for name, old := range map[string]*corev1.ConfigMap{"inside": inside, "live-forced": liveForced} {
		cm, _ := liveConfigMap(g, ns, name)
		g.Expect(cm.UID).NotTo(Equal(old.UID), name)
		g.Expect(cm.Data).To(Equal(value("2")), name)
	}
	assertNoOverlap(t)
}
