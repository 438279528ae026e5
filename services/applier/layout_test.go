package applier_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// The program of KCL's base/overlay layout (the codelab's "collaborative"
// one): dev/kcl.yaml lists ../base/base.k beside main.k; each KCLRun names
// spec.path ./dev. The expected output is what kcl run 0.12.1 prints for it.
var layoutFiles = map[string]string{
	"base/base.k": `schema ConfigMap:
    apiVersion: str = "v1"
    kind: str = "ConfigMap"
    metadata: {str:any}
    data: {str:str} = {}

_cm: ConfigMap {
    metadata.name = "layout"
    data.from = "base"
}
items = [_cm]
`,
	"dev/main.k": `_cm: ConfigMap {
    metadata.labels.env = "dev"
    metadata.labels.drop = "me"
    data.env = "dev"
}
`,
	"dev/kcl.yaml": "kcl_cli_configs:\n  files:\n    - ../base/base.k\n    - main.k\n",
}

// A settings file in spec.path listing an entry in a sibling folder of the
// artifact runs, and spec.config.overrides deletes a key the program set with
// a dotted key (issue 30, classes 1 and 2).
func TestSettingsEntryInASiblingFolderOfTheArtifact(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	path := artifactserver.ArtifactPath("GitRepository", ns, "layout", "layout.tar.gz")
	revision := fmt.Sprintf("main@sha1:%040d", revisionSeq.Add(1))
	a, err := artifacts.PublishFiles(path, layoutFiles, revision)
	if err != nil {
		t.Fatal(err)
	}
	setArtifact(t, ns, "layout", a)
	createKCLRun(t, ns, "dev", "layout", func(o *v1alpha1.KCLRun) {
		o.Spec.Path = "./dev"
		o.Spec.Config = &v1alpha1.ConfigSpec{Settings: []string{"kcl.yaml"}, Overrides: []string{"_cm.metadata.labels.drop-"}}
	})
	readyAt(t, ns, "dev", revision)
	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "layout"}, cm)).To(Succeed())
	g.Expect(cm.Data).To(Equal(map[string]string{"from": "base", "env": "dev"}))
	g.Expect(cm.Labels).To(HaveKeyWithValue("env", "dev"))
	g.Expect(cm.Labels).NotTo(HaveKey("drop"), "spec.config.overrides did not delete the dotted key")
}

// Anything outside the artifact stays refused unread, the sibling folder's
// way included: an entry climbing out of it, or named by an absolute path.
func TestSettingsEntryOutsideTheArtifactIsRefused(t *testing.T) {
	ns := newNamespace(t)
	foreign := filepath.Join(t.TempDir(), "main.k")
	if err := os.WriteFile(foreign, []byte(`items = [{apiVersion = "v1", kind = "ConfigMap", metadata.name = "leak", data.token = "other-tenant-token"}]`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"dev/main.k":   "items = []\n",
		"dev/abs.yaml": "kcl_cli_configs:\n  files:\n    - " + foreign + "\n",
		"dev/rel.yaml": "kcl_cli_configs:\n  files:\n    - ../../../../../../../../../../../.." + foreign + "\n",
	}
	path := artifactserver.ArtifactPath("GitRepository", ns, "escape", "escape.tar.gz")
	a, err := artifacts.PublishFiles(path, files, fmt.Sprintf("main@sha1:%040d", revisionSeq.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	setArtifact(t, ns, "escape", a)
	for _, settings := range []string{"abs.yaml", "rel.yaml"} {
		name := "escape-" + settings[:3]
		createKCLRun(t, ns, name, "escape", func(o *v1alpha1.KCLRun) {
			o.Spec.Path = "./dev"
			o.Spec.Config = &v1alpha1.ConfigSpec{Settings: []string{settings}}
		})
		g := NewWithT(t)
		g.Eventually(func(g Gomega) {
			ready := readyCondition(getKCLRun(g, ns, name))
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(v1alpha1.CompileFailedReason))
			g.Expect(ready.Message).To(ContainSubstring("spec.config.settings"))
			g.Expect(ready.Message).To(ContainSubstring("outside the program root"))
			g.Expect(ready.Message).NotTo(ContainSubstring("other-tenant-token"))
		}, "2m").Should(Succeed())
	}
	err = env.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "leak"}, &corev1.ConfigMap{})
	NewWithT(t).Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the refused program applied a ConfigMap")
}

// A $imagepolicy marker in the sibling entry file follows its ImagePolicy as
// one in spec.path does.
func TestMarkerInASiblingEntryFileFollowsItsPolicy(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	policy := &imagev1.ImagePolicy{
		ObjectMeta: objectMeta(ns, "web"),
		Spec: imagev1.ImagePolicySpec{
			ImageRepositoryRef: meta.NamespacedObjectReference{Name: "web"},
			Policy:             imagev1.ImagePolicyChoice{SemVer: &imagev1.SemVerPolicy{Range: ">=1.0.0"}},
		},
	}
	g.Expect(env.Client.Create(ctx, policy)).To(Succeed())
	policy.Status.LatestRef = &imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "2.0.0"}
	g.Expect(env.Client.Status().Update(ctx, policy)).To(Succeed())

	files := map[string]string{}
	for k, v := range layoutFiles {
		files[k] = v
	}
	files["base/base.k"] = `schema ConfigMap:
    apiVersion: str = "v1"
    kind: str = "ConfigMap"
    metadata: {str:any}
    data: {str:str} = {}

_cm: ConfigMap {
    metadata.name = "layout"
    data.image = "ghcr.io/org/web:1.0.0"  # {"$imagepolicy": "web"}
}
items = [_cm]
`
	path := artifactserver.ArtifactPath("GitRepository", ns, "layout", "layout.tar.gz")
	revision := fmt.Sprintf("main@sha1:%040d", revisionSeq.Add(1))
	a, err := artifacts.PublishFiles(path, files, revision)
	if err != nil {
		t.Fatal(err)
	}
	setArtifact(t, ns, "layout", a)
	createKCLRun(t, ns, "dev", "layout", func(o *v1alpha1.KCLRun) {
		o.Spec.Path = "./dev"
		o.Spec.Config = &v1alpha1.ConfigSpec{Settings: []string{"kcl.yaml"}}
	})
	obj := readyAt(t, ns, "dev", revision)
	g.Expect(obj.Status.ImagePolicies).To(Equal([]string{ns + "/web"}))
	g.Expect(obj.Status.Images).To(ConsistOf(HaveField("Location", "base/base.k:9")))
	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "layout"}, cm)).To(Succeed())
	g.Expect(cm.Data).To(HaveKeyWithValue("image", "ghcr.io/org/web:2.0.0"))
}
