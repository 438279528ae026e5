package applier_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// A settings file outside the artifact (here a file on the compiler's disk that
// holds another tenant's token) is refused unread: Ready=False naming the
// setting, a warning event, nothing applied.
func TestSettingsOutsideTheArtifactAreRefused(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	foreign := filepath.Join(t.TempDir(), "kcl.yaml")
	if err := os.WriteFile(foreign, []byte("kcl_options:\n  - key: token\n    value: other-tenant-token\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	program := `[{apiVersion = "v1", kind = "ConfigMap", metadata.name = "leak", data.token = option("token") or "unset"}]` + "\n"
	path := artifactserver.ArtifactPath("GitRepository", ns, "app", "settings.tar.gz")
	a, err := artifacts.PublishFiles(path, map[string]string{"main.k": program}, fmt.Sprintf("main@sha1:%040d", revisionSeq.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	setArtifact(t, ns, "app", a)
	createKCLRun(t, ns, "escape", "app", func(o *v1alpha1.KCLRun) {
		o.Spec.Config = &v1alpha1.ConfigSpec{Settings: []string{foreign}}
	})

	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, ns, "escape"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(v1alpha1.CompileFailedReason))
		g.Expect(ready.Message).To(ContainSubstring("spec.config.settings"))
		g.Expect(ready.Message).To(ContainSubstring(foreign))
		g.Expect(ready.Message).To(ContainSubstring("outside the program root"))
	}, "2m").Should(Succeed())
	g.Eventually(func() bool {
		for _, e := range events.forObject(ns, "escape") {
			if e.Severity == "error" && e.Reason == v1alpha1.CompileFailedReason && strings.Contains(e.Message, "spec.config.settings") {
				return true
			}
		}
		return false
	}, "1m").Should(BeTrue())
	for _, e := range events.forObject(ns, "escape") {
		g.Expect(e.Message).NotTo(ContainSubstring("other-tenant-token"))
	}
	err = env.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "leak"}, &corev1.ConfigMap{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the refused program applied a ConfigMap")
}
