package applier_test

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// A kcl.mod naming the cloud metadata address is refused by the compiler's
// package policy: Ready=False DependencyRefused naming the host and the flag,
// and a warning event.
func TestRefusedPackageIsDependencyRefused(t *testing.T) {
	g := NewWithT(t)
	g.Expect(compiler.KindDependencyRefused).To(Equal(v1alpha1.DependencyRefusedReason), "the compiler's kind is the KCLRun's reason")
	ns := newNamespace(t)
	path := artifactserver.ArtifactPath("GitRepository", ns, "app", "metadata.tar.gz")
	a, err := artifacts.PublishFiles(path, map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nmeta = { oci = \"oci://169.254.169.254/latest/meta-data\", tag = \"1\" }\n",
		"main.k":  configMap("never", "applied"),
	}, fmt.Sprintf("main@sha1:%040d", revisionSeq.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	setArtifact(t, ns, "app", a)
	createKCLRun(t, ns, "metadata", "app")

	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, ns, "metadata"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(v1alpha1.DependencyRefusedReason))
		g.Expect(ready.Message).To(ContainSubstring(`"169.254.169.254"`))
		g.Expect(ready.Message).To(ContainSubstring("--allowed-package-networks"))
	}, "2m").Should(Succeed())
	g.Eventually(func() bool {
		for _, e := range events.forObject(ns, "metadata") {
			if e.Severity == "error" && e.Reason == v1alpha1.DependencyRefusedReason {
				return true
			}
		}
		return false
	}, "1m").Should(BeTrue())
}
