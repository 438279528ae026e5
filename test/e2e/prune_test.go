package e2e

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// webProgram renders an nginx Deployment and, with service, its Service, as a
// YAML stream of one document each.
func webProgram(service bool) string {
	program := `import manifests

_labels = {app = "web"}
_deployment = {
    apiVersion = "apps/v1"
    kind = "Deployment"
    metadata = {name = "web", labels = _labels}
    spec = {
        selector.matchLabels = _labels
        template.metadata.labels = _labels
        template.spec.containers = [{name = "web", image = "nginx:1.7.7"}]
    }
}
_service = {
    apiVersion = "v1"
    kind = "Service"
    metadata = {name = "web", labels = _labels}
    spec = {selector = _labels, ports = [{port = 80}]}
}
`
	if service {
		return program + "manifests.yaml_stream([_deployment, _service])\n"
	}
	return program + "manifests.yaml_stream([_deployment])\n"
}

// TestCommitRemovingAnObjectPrunesIt: a commit that drops the Service from the
// program deletes it from the cluster and keeps the Deployment.
func TestCommitRemovingAnObjectPrunesIt(t *testing.T) {
	s := newStory(t, "prune")
	first := s.commit("web with a service", map[string]string{"main.k": webProgram(true)})
	s.deliver()
	s.waitApplied(first)
	s.Eventually(func(g Gomega) {
		s.deployment(g, "web")
		var svc corev1.Service
		g.Expect(s.c.Get(s.ctx, client.ObjectKey{Namespace: s.namespace, Name: "web"}, &svc)).To(Succeed())
	})

	second := s.commitAndReconcile("drop the service", map[string]string{"main.k": webProgram(false)})
	s.waitApplied(second.commit)
	s.Eventually(func(g Gomega) {
		s.expectGone(g, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: "web"}})
		s.deployment(g, "web")
		inventory := s.getRun(g).Status.Inventory
		g.Expect(inventory).NotTo(BeNil())
		g.Expect(inventory.Entries).To(HaveLen(1))
	})
}
