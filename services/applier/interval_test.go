package applier_test

import (
	"context"
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// With drift detection on (the default) an interval with nothing changed is
// a no-op: edits to the objects are undone as they happen, and the inputs
// are checked against the fingerprint; nothing is compiled or written.
func TestIntervalIsANoOpBehindDriftDetection(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", configMap("settings", ns))
	createKCLRun(t, ns, "app", "app")
	readyAt(t, ns, "app", artifact.Revision)
	key := ns + "/app"
	waitQuiet(t, key)

	g.Expect(requestAndWait(t, ns, "app", reconcilerequest.ReasonIntervalElapsed).Result).To(Equal(applier.ResultNoOp))
}

// A suspended KCLRun is left alone: a new revision is not applied.
func TestSuspendSkipsReconciles(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	first := publishProgram(t, ns, "app", configMap("settings", "first-"+ns))
	obj := createKCLRun(t, ns, "app", "app")
	readyAt(t, ns, "app", first.Revision)

	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "app"}, obj)).To(Succeed())
	obj.Spec.Suspend = true
	g.Expect(env.Client.Update(ctx, obj)).To(Succeed())
	publishProgram(t, ns, "app", configMap("settings", "second-"+ns))
	g.Expect(requestAndWait(t, ns, "app", reconcilerequest.ReasonSourceChanged).Result).To(Equal(applier.ResultSuspended))
	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "settings"}, cm)).To(Succeed())
	g.Expect(cm.Data).To(HaveKeyWithValue("value", "first-"+ns))
	_ = v1alpha1.KCLRunKind
}

// The fingerprint a first sync stores covers the image policies it resolved,
// so the very next interval of a program with a marker is a no-op too.
func TestIntervalAfterFirstSyncWithPolicyIsANoOp(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	_, err := imagepolicy.Create(ctx, env.Client, ns, "web", imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "2.0.0"})
	g.Expect(err).NotTo(HaveOccurred())

	artifact := publishProgram(t, ns, "app", markedWebApp(ns))
	createKCLRun(t, ns, "web", "app")
	readyAt(t, ns, "web", artifact.Revision)
	key := ns + "/web"
	waitQuiet(t, key)

	g.Expect(requestAndWait(t, ns, "web", reconcilerequest.ReasonIntervalElapsed).Result).To(Equal(applier.ResultNoOp))
}
