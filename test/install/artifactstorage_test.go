package install_test

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// artifactStorage.enabled: every applier (each shard's, or the all-in-one process) keeps
// what KCLRuns with spec.output.mode ExternalArtifact publish on a volume, serves it through
// a Service of its own name on port 80, advertises that Service in the artifacts' URLs, and
// may write ExternalArtifacts; the network policy lets kustomize-controller fetch them.
func TestChartArtifactStorage(t *testing.T) {
	g := NewWithT(t)
	for values, appliers := range map[string][]string{
		shardsValues:                {"kcl-applier", "kcl-applier-shard1", "kcl-applier-shard2"},
		"ci/all-in-one-values.yaml": {"flux-kcl-controller"},
	} {
		objs := renderChart(t, []string{values}, map[string]any{"networkPolicy": map[string]any{"enabled": true}})
		for _, name := range appliers {
			binary := "applier"
			if name == "flux-kcl-controller" {
				binary = name
			}
			flags := serviceArgs(t, objs, name, binary)
			cfg := flags.Applier
			if binary != "applier" {
				cfg = flags.AllInOne.Applier
			}
			g.Expect(cfg.StoragePath).To(Equal("/storage"), name)
			g.Expect(cfg.StorageAddr).To(Equal(":9090"), name)
			g.Expect(cfg.StorageAdvAddr).To(Equal(name+"."+releaseNamespace+".svc.cluster.local."), name)

			pod := deployment(t, find(objs, "Deployment", name)).Spec.Template.Spec
			g.Expect(pod.Containers[0].Ports).To(ContainElement(HaveField("ContainerPort", BeEquivalentTo(9090))), name)
			g.Expect(pod.Containers[0].VolumeMounts).To(ContainElement(corev1.VolumeMount{Name: "storage", MountPath: "/storage"}), name)

			svc := &corev1.Service{}
			o := find(objs, "Service", name)
			g.Expect(o).NotTo(BeNil(), name)
			g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, svc)).To(Succeed())
			g.Expect(svc.Spec.Selector).To(Equal(map[string]string{"app.kubernetes.io/name": name}))
			g.Expect(svc.Spec.Ports).To(HaveLen(1))
			g.Expect(svc.Spec.Ports[0].Port).To(BeEquivalentTo(80))
			g.Expect(svc.Spec.Ports[0].TargetPort.String()).To(Equal("http"))

			policy := find(objs, "NetworkPolicy", name)
			g.Expect(policy).NotTo(BeNil(), name)
			ingress, _, _ := unstructured.NestedSlice(policy.Object, "spec", "ingress")
			g.Expect(ingress).To(ContainElement(HaveKeyWithValue("ports", ContainElement(HaveKeyWithValue("port", "http")))), name)
		}
		role := find(objs, "ClusterRole", releaseName+"-applier")
		g.Expect(role).NotTo(BeNil())
		g.Expect(role.Object["rules"]).To(ContainElement(And(
			HaveKeyWithValue("resources", ConsistOf("externalartifacts/status")),
			HaveKeyWithValue("verbs", ContainElement("patch")))))
	}

	// One replica's folder: several applier replicas are refused, not left to serve 404s.
	_, err := renderChartObjects(nil, map[string]any{
		"artifactStorage": map[string]any{"enabled": true},
		"services":        map[string]any{"applier": map[string]any{"replicas": 2}},
	})
	g.Expect(err).To(MatchError(ContainSubstring("artifactStorage.enabled needs services.applier.replicas: 1")))
}
