package applier_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// A dependsOn readyExpr (CEL over dep and self) must hold beside the
// built-in check, as with Flux's AdditiveCELDependencyCheck.
func TestDependsOnReadyExpr(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	base := publishProgram(t, ns, "base", configMap("base", "v1"))
	createKCLRun(t, ns, "base", "base", func(k *v1alpha1.KCLRun) { k.Labels = map[string]string{"stage": "canary"} })
	readyAt(t, ns, "base", base.Revision)

	app := publishProgram(t, ns, "app", configMap("app", "v1"))
	createKCLRun(t, ns, "app", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.DependsOn = []meta.DependencyReference{{Name: "base", ReadyExpr: "dep.metadata.labels.stage == 'stable' && self.metadata.name == 'app'"}}
	})
	g.Eventually(func(g Gomega) {
		g.Expect(conditionOf(getKCLRun(g, ns, "app"), meta.ReadyCondition)).To(And(
			HaveField("Reason", meta.DependencyNotReadyReason),
			HaveField("Message", ContainSubstring("not ready according to readyExpr eval"))))
	}, "1m", "200ms").Should(Succeed())

	obj := getKCLRun(g, ns, "base")
	patch := client.MergeFrom(obj.DeepCopy())
	obj.Labels["stage"] = "stable"
	g.Expect(env.Client.Patch(ctx, obj, patch)).To(Succeed())
	readyAt(t, ns, "app", app.Revision)
}

// A dependent of the same source waits until its dependency applied the
// same revision (mono-repo ordering), also when a readyExpr holds.
func TestDependsOnSameSourceWaitsForTheRevision(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	first := publishMonoRepo(t, ns, "v1")
	createKCLRun(t, ns, "base", "mono", func(k *v1alpha1.KCLRun) { k.Spec.Path = "base" })
	readyAt(t, ns, "base", first.Revision)
	createKCLRun(t, ns, "app", "mono", func(k *v1alpha1.KCLRun) {
		k.Spec.Path = "app"
		k.Spec.DependsOn = []meta.DependencyReference{{Name: "base", ReadyExpr: "dep.spec.prune == true"}}
	})
	readyAt(t, ns, "app", first.Revision)

	// Only the dependent hears of the new revision: base is Ready, at the old one.
	second := publishMonoRepo(t, ns, "v2")
	request(t, ns, "app", reconcilerequest.ReasonSourceChanged)
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "app")
		g.Expect(conditionOf(obj, meta.ReadyCondition)).To(And(
			HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", meta.DependencyNotReadyReason),
			HaveField("Message", ContainSubstring("revision is not up to date"))))
		g.Expect(obj.Status.LastAppliedRevision).To(Equal(first.Revision))
	}, "1m", "200ms").Should(Succeed())

	request(t, ns, "base", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "base", second.Revision)
	readyAt(t, ns, "app", second.Revision)
}

// publishMonoRepo serves one artifact with two programs, base/ and app/.
func publishMonoRepo(t testing.TB, namespace, value string) *meta.Artifact {
	t.Helper()
	n := revisionSeq.Add(1)
	path := artifactserver.ArtifactPath("GitRepository", namespace, "mono", fmt.Sprintf("rev-%d.tar.gz", n))
	artifact, err := artifacts.PublishFiles(path, map[string]string{
		"base/main.k": configMap("base", value),
		"app/main.k":  configMap("app", value),
	}, fmt.Sprintf("main@sha1:%040d", n))
	if err != nil {
		t.Fatal(err)
	}
	setArtifact(t, namespace, "mono", artifact)
	return artifact
}
