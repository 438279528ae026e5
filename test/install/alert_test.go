package install_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	alertsCRD    = "notification.toolkit.fluxcd.io_alerts.yaml"
	receiversCRD = "notification.toolkit.fluxcd.io_receivers.yaml"
)

// fluxKinds is the kind enum of notification-controller v1.9's Alert and Receiver.
var fluxKinds = []any{
	"Bucket", "GitRepository", "Kustomization", "HelmRelease", "HelmChart", "HelmRepository",
	"ImageRepository", "ImagePolicy", "ImageUpdateAutomation", "OCIRepository", "ArtifactGenerator", "ExternalArtifact",
}

// An Alert (and a Receiver) naming KCLRun is refused by Flux's own CRDs and accepted once they
// are extended, by the kustomize component or by the chart's Job; the Job's patch can run
// again without changing anything.
func TestAlertsAcceptKCLRunOnceExtended(t *testing.T) {
	needsAPIServer(t)
	ctx := context.Background()
	original := installCRDs(t, alertsCRD, receiversCRD)
	t.Cleanup(func() { applyCRDs(t, original) })
	expectKCLRunAccepted(t, false)

	t.Run("kustomize component", func(t *testing.T) {
		g := NewWithT(t)
		built := buildWithAlertComponent(t)
		var extended, rbac []*unstructured.Unstructured
		for _, o := range built {
			if o.GetKind() == "CustomResourceDefinition" {
				extended = append(extended, o)
				g.Expect(kindEnum(t, o)).To(Equal(append(append([]any{}, fluxKinds...), "KCLRun")), o.GetName())
			} else {
				rbac = append(rbac, o)
			}
		}
		g.Expect(extended).To(HaveLen(2))
		applyCRDs(t, extended)
		expectKCLRunAccepted(t, true)
		expectReceiverMayAnnotate(t, rbac)
		applyCRDs(t, original)
		expectKCLRunAccepted(t, false)
	})

	t.Run("chart Job", func(t *testing.T) {
		g := NewWithT(t)
		objs := renderChart(t, nil, map[string]any{"alertKCLRun": map[string]any{"enabled": true}})
		job := find(objs, "Job", "flux-kcl-controller-alert-kclrun")
		g.Expect(job).NotTo(BeNil())
		patches := jobPatches(t, job)
		g.Expect(patches).To(HaveKey("alerts.notification.toolkit.fluxcd.io"))
		g.Expect(patches).To(HaveKey("receivers.notification.toolkit.fluxcd.io"))
		expectReceiverMayAnnotate(t, []*unstructured.Unstructured{
			find(objs, "ClusterRole", "flux-kcl-controller-notification-receiver"),
			find(objs, "ClusterRoleBinding", "flux-kcl-controller-notification-receiver"),
		})
		for range 2 { // idempotent
			for name, patch := range patches {
				crd := &unstructured.Unstructured{}
				crd.SetAPIVersion("apiextensions.k8s.io/v1")
				crd.SetKind("CustomResourceDefinition")
				crd.SetName(name)
				g.Expect(env.Client.Patch(ctx, crd, client.RawPatch(types.JSONPatchType, []byte(patch)))).To(Succeed(), name)
				g.Expect(kindEnum(t, crd)).To(Equal(append(append([]any{}, fluxKinds...), "KCLRun")), name)
			}
		}
		expectKCLRunAccepted(t, true)
	})
}

// expectReceiverMayAnnotate applies the RBAC that lets notification-controller's Receivers
// annotate KCLRuns, checks with the apiserver's authorizer that it then may (and before, may
// not), and removes it again.
func expectReceiverMayAnnotate(t *testing.T, rbac []*unstructured.Unstructured) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	g.Expect(rbac).To(HaveLen(2))
	g.Expect(rbac).NotTo(ContainElement(BeNil()))
	allowed := func() bool {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:flux-system:notification-controller",
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:flux-system"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: "apps", Verb: "patch", Group: "krm.kcl.dev.fluxcd", Resource: "kclruns",
			},
		}}
		g.Expect(env.Client.Create(ctx, review)).To(Succeed())
		return review.Status.Allowed
	}
	g.Expect(allowed()).To(BeFalse())
	for _, o := range rbac {
		g.Expect(apply(ctx, o)).To(Succeed())
	}
	g.Eventually(allowed, time.Minute, 100*time.Millisecond).Should(BeTrue())
	for _, o := range rbac {
		g.Expect(env.Client.Delete(ctx, o.DeepCopy())).To(Succeed())
	}
	g.Eventually(allowed, time.Minute, 100*time.Millisecond).Should(BeFalse())
}

// buildWithAlertComponent builds Flux's Alert and Receiver CRDs with the component, as the
// kustomization installing Flux would.
func buildWithAlertComponent(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{alertsCRD, receiversCRD} {
		data, err := os.ReadFile(filepath.Join(extraCRDs, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	component, err := filepath.Rel(dir, filepath.Join(repoRoot, "deploy", "components", "alert-kclrun"))
	if err != nil {
		t.Fatal(err)
	}
	kustomization := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" +
		"resources:\n  - " + alertsCRD + "\n  - " + receiversCRD + "\ncomponents:\n  - " + component + "\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	return buildKustomization(t, dir)
}

// jobPatches maps each CRD the Job patches to its JSON patch (kubectl patch args).
func jobPatches(t *testing.T, job *unstructured.Unstructured) map[string]string {
	t.Helper()
	pod, _, _ := unstructured.NestedMap(job.Object, "spec", "template", "spec")
	out := map[string]string{}
	for _, field := range []string{"initContainers", "containers"} {
		containers, _ := pod[field].([]any)
		for _, c := range containers {
			args, _ := c.(map[string]any)["args"].([]any)
			var crd, patch string
			for i, a := range args {
				s := a.(string)
				if i == 2 {
					crd = s
				}
				if p, ok := strings.CutPrefix(s, "--patch="); ok {
					patch = p
				}
			}
			out[crd] = patch
		}
	}
	return out
}

// kindEnum is the enum of the kinds an Alert's eventSources or a Receiver's resources take.
func kindEnum(t *testing.T, crd *unstructured.Unstructured) []any {
	t.Helper()
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if len(versions) == 0 {
		t.Fatalf("%s has no versions", crd.GetName())
	}
	list := "eventSources"
	if crd.GetName() == "receivers.notification.toolkit.fluxcd.io" {
		list = "resources"
	}
	enum, _, _ := unstructured.NestedSlice(versions[0].(map[string]any),
		"schema", "openAPIV3Schema", "properties", "spec", "properties", list, "items", "properties", "kind", "enum")
	return enum
}

// expectKCLRunAccepted dry-run creates an Alert and a Receiver naming KCLRun, waiting for the
// apiserver to validate with the current CRD schema.
func expectKCLRunAccepted(t *testing.T, accepted bool) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	alert := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "notification.toolkit.fluxcd.io/v1beta3", "kind": "Alert",
		"metadata": map[string]any{"name": "kclruns", "namespace": releaseNamespace},
		"spec": map[string]any{
			"providerRef":  map[string]any{"name": "slack"},
			"eventSources": []any{map[string]any{"kind": "KCLRun", "name": "*"}},
		},
	}}
	receiver := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "notification.toolkit.fluxcd.io/v1", "kind": "Receiver",
		"metadata": map[string]any{"name": "kclruns", "namespace": releaseNamespace},
		"spec": map[string]any{
			"type":      "generic",
			"secretRef": map[string]any{"name": "webhook-token"},
			"resources": []any{map[string]any{"kind": "KCLRun", "name": "*"}},
		},
	}}
	for _, obj := range []*unstructured.Unstructured{alert, receiver} {
		g.Eventually(func(g Gomega) {
			err := env.Client.Create(ctx, obj.DeepCopy(), client.DryRunAll)
			if accepted {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
			g.Expect(err.Error()).To(ContainSubstring("KCLRun"))
		}, time.Minute, 100*time.Millisecond).Should(Succeed(), obj.GetKind())
	}
}
