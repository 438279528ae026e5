package kube_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kclv1alpha1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// The example from the documentation, exactly as written: no interval, no prune.
const exampleKCLRun = `
apiVersion: krm.kcl.dev.fluxcd/v1alpha1
kind: KCLRun
metadata:
  name: kcl-deployment
  namespace: source-system
spec:
  sourceRef:
    kind: GitRepository
    name: kcl-deployment
`

// createFromYAML creates the object in doc, in namespace ns unless ns is empty, after edit.
func createFromYAML(ctx context.Context, doc, ns string, edit func(spec map[string]any)) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		return nil, err
	}
	if ns != "" {
		u.SetNamespace(ns)
	}
	if edit != nil {
		edit(u.Object["spec"].(map[string]any))
	}
	return u, env.Client.Create(ctx, u)
}

func TestKCLRunExampleIsAcceptedWithDefaults(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	g.Expect(client.IgnoreAlreadyExists(env.Client.Create(ctx, namespace("source-system")))).To(Succeed())

	_, err := createFromYAML(ctx, exampleKCLRun, "", nil)
	g.Expect(err).NotTo(HaveOccurred())

	var run kclv1alpha1.KCLRun
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: "source-system", Name: "kcl-deployment"}, &run)).To(Succeed())
	g.Expect(run.Spec.SourceRef.Kind).To(Equal("GitRepository"))
	g.Expect(run.Spec.SourceRef.Name).To(Equal("kcl-deployment"))
	g.Expect(run.Spec.Interval.Duration).To(Equal(10 * time.Minute))
	g.Expect(run.Spec.Prune).To(BeFalse())
	g.Expect(run.Spec.Force).To(BeFalse())
	g.Expect(run.GetTimeout()).To(Equal(5 * time.Minute))
	g.Expect(run.GetRetryInterval()).To(Equal(10 * time.Minute))
	g.Expect(run.SourceNamespace()).To(Equal("source-system"))

	// The defaults are stored, not only filled in on read by our types.
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kclv1alpha1.GroupVersion.WithKind(kclv1alpha1.KCLRunKind))
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: "source-system", Name: "kcl-deployment"}, u)).To(Succeed())
	g.Expect(u.Object["spec"]).To(HaveKeyWithValue("interval", "10m"))
	g.Expect(u.Object["spec"]).To(HaveKeyWithValue("prune", false))
}

// The original controller's fields: persistentClient true (what the controller does) and
// params of any JSON type are stored as written.
func TestKCLRunAcceptsTheOriginalControllersFields(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns, err := env.CreateNamespace(ctx, "original")
	g.Expect(err).NotTo(HaveOccurred())
	u, err := createFromYAML(ctx, exampleKCLRun, ns, func(s map[string]any) {
		s["persistentClient"] = true
		s["params"] = map[string]any{"replicas": int64(2), "name": "web", "zones": []any{"a"}, "nested": map[string]any{"a": true}}
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(u), u)).To(Succeed())
	g.Expect(u.Object["spec"]).To(HaveKeyWithValue("params", HaveKeyWithValue("nested", HaveKeyWithValue("a", true))))
	g.Expect(u.Object["spec"]).To(HaveKeyWithValue("params", HaveKeyWithValue("zones", ConsistOf("a"))))
}

func TestKCLRunValidation(t *testing.T) {
	ctx := context.Background()
	ns, err := env.CreateNamespace(ctx, "validation")
	NewWithT(t).Expect(err).NotTo(HaveOccurred())

	for name, tc := range map[string]struct {
		edit  func(spec map[string]any)
		field string
	}{
		"unknown sourceRef kind": {
			edit:  func(s map[string]any) { s["sourceRef"].(map[string]any)["kind"] = "HelmRepository" },
			field: "spec.sourceRef.kind",
		},
		"malformed interval": {
			edit:  func(s map[string]any) { s["interval"] = "ten minutes" },
			field: "spec.interval",
		},
		"malformed timeout": {
			edit:  func(s map[string]any) { s["timeout"] = "5" },
			field: "spec.timeout",
		},
		"unknown deletionPolicy": {
			edit:  func(s map[string]any) { s["deletionPolicy"] = "Keep" },
			field: "spec.deletionPolicy",
		},
		"persistentClient false": {
			edit:  func(s map[string]any) { s["persistentClient"] = false },
			field: "persistentClient: false is not supported",
		},
		"missing sourceRef name": {
			edit:  func(s map[string]any) { delete(s["sourceRef"].(map[string]any), "name") },
			field: "spec.sourceRef.name",
		},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := createFromYAML(ctx, exampleKCLRun, ns, tc.edit)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
			g.Expect(err.Error()).To(ContainSubstring(tc.field))
		})
	}
}

// Flux Operator's report counts the reconcilers of the CRDs labelled
// app.kubernetes.io/part-of=<instance> (flux): the installed KCLRun CRD is one.
func TestKCLRunCRDIsPartOfFlux(t *testing.T) {
	g := NewWithT(t)
	var crds apiextensionsv1.CustomResourceDefinitionList
	g.Expect(env.Client.List(context.Background(), &crds, client.MatchingLabels{"app.kubernetes.io/part-of": "flux"})).To(Succeed())
	g.Expect(crds.Items).To(ContainElement(And(
		HaveField("Spec.Group", kclv1alpha1.GroupVersion.Group),
		HaveField("Spec.Names.Kind", kclv1alpha1.KCLRunKind),
		HaveField("Status.StoredVersions", ContainElement(kclv1alpha1.GroupVersion.Version)),
	)))
}
