//go:build linux

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// imageProgram renders the Deployment web of image and, with service, its Service.
func imageProgram(image string, service bool) string {
	objects := "[_deployment]"
	if service {
		objects = "[_deployment, _service]"
	}
	return fmt.Sprintf(`import manifests

_labels = {app = "web"}
_deployment = {
    apiVersion = "apps/v1"
    kind = "Deployment"
    metadata = {name = "web", labels = _labels}
    spec = {
        selector.matchLabels = _labels
        template.metadata.labels = _labels
        template.spec.containers = [{name = "web", image = %q}]
    }
}
_service = {
    apiVersion = "v1"
    kind = "Service"
    metadata = {name = "web", labels = _labels}
    spec = {selector = _labels, ports = [{port = 80}]}
}
manifests.yaml_stream(%s)
`, image, objects)
}

// TestKustomizationAppliesAPublishedExternalArtifact: a KCLRun with spec.output.mode
// ExternalArtifact applies nothing itself; Flux's own kustomize-controller v1.9.6 (with its
// ExternalArtifact feature gate, off by default in that version) applies the objects from a
// Kustomization whose sourceRef is the ExternalArtifact, and a new commit reaches the cluster
// through it: the image moves and the Service the program dropped is pruned.
func TestKustomizationAppliesAPublishedExternalArtifact(t *testing.T) {
	s := newStory(t, "externalartifact")
	startKustomizeController(t)

	first := s.commit("web 1.7.7 with a service", map[string]string{"main.k": imageProgram("nginx:1.7.7", true)})
	s.deliver(func(run *kclv1.KCLRun) {
		run.Spec.Output = &kclv1.Output{
			Mode:             kclv1.OutputExternalArtifact,
			ExternalArtifact: &kclv1.ExternalArtifactOutput{Name: "web-rendered"},
		}
	})
	s.waitApplied(first)
	g := NewWithT(t)
	g.Expect(s.getRun(g).Status.Inventory).To(Or(BeNil(), HaveField("Entries", BeEmpty())), "the KCLRun applies nothing")

	ks := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
		"kind":       "Kustomization",
		"metadata":   map[string]any{"namespace": s.namespace, "name": "web"},
		"spec": map[string]any{
			"interval":  "1h", // new artifacts arrive through the ExternalArtifact's watch
			"path":      "./",
			"prune":     true,
			"sourceRef": map[string]any{"kind": sourcev1.ExternalArtifactKind, "name": "web-rendered"},
		},
	}}
	g.Expect(s.c.Create(s.ctx, ks)).To(Succeed())

	appliedBy := func(g Gomega, obj client.Object) {
		g.Expect(obj.GetLabels()).To(HaveKeyWithValue("kustomize.toolkit.fluxcd.io/name", "web"))
		g.Expect(obj.GetLabels()).NotTo(HaveKey("krm.kcl.dev.fluxcd/name"))
	}
	s.Eventually(func(g Gomega) {
		kustomizationReadyAt(g, s, first)
		d := s.deployment(g, "web")
		g.Expect(containerImages(d)).To(Equal([]string{"nginx:1.7.7"}))
		appliedBy(g, d)
		var svc corev1.Service
		g.Expect(s.c.Get(s.ctx, client.ObjectKey{Namespace: s.namespace, Name: "web"}, &svc)).To(Succeed())
		appliedBy(g, &svc)
	})

	second := s.commitAndReconcile("web 1.7.8, no service", map[string]string{"main.k": imageProgram("nginx:1.7.8", false)})
	s.waitApplied(second.commit)
	s.Eventually(func(g Gomega) {
		kustomizationReadyAt(g, s, second.commit)
		g.Expect(containerImages(s.deployment(g, "web"))).To(Equal([]string{"nginx:1.7.8"}))
		s.expectGone(g, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: "web"}})
	})
}

// kustomizationReadyAt checks that the Kustomization web applied the ExternalArtifact's
// artifact of the commit.
func kustomizationReadyAt(g Gomega, s *story, commit string) {
	ks := &unstructured.Unstructured{}
	ks.SetAPIVersion("kustomize.toolkit.fluxcd.io/v1")
	ks.SetKind("Kustomization")
	g.Expect(s.c.Get(s.ctx, client.ObjectKey{Namespace: s.namespace, Name: "web"}, ks)).To(Succeed())
	applied, _, _ := unstructured.NestedString(ks.Object, "status", "lastAppliedRevision")
	raw, _, _ := unstructured.NestedSlice(ks.Object, "status", "conditions")
	var conditions []metav1.Condition
	for _, c := range raw {
		m, _ := c.(map[string]any)
		status, _ := m["status"].(string)
		typ, _ := m["type"].(string)
		msg, _ := m["message"].(string)
		conditions = append(conditions, metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status), Message: msg})
	}
	ready := apimeta.FindStatusCondition(conditions, meta.ReadyCondition)
	g.Expect(ready).NotTo(BeNil(), "Kustomization has no Ready condition yet")
	g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
	g.Expect(applied).To(HaveSuffix(commit))
}

// startKustomizeController installs the Kustomization CRD and runs kustomize-controller
// v1.9.6, built once by hack/loadtest/build.sh, until the test ends; its log goes to the
// suite's log folder.
func startKustomizeController(t *testing.T) {
	t.Helper()
	root, err := kube.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	binary := runHackScript(t, filepath.Join(root, "hack", "loadtest", "build.sh"))
	crds := runHackScript(t, filepath.Join(root, "hack", "loadtest", "crds.sh"))
	if _, err := envtest.InstallCRDs(suite.env.Config, envtest.CRDInstallOptions{Paths: []string{crds}, ErrorIfPathMissing: true}); err != nil {
		t.Fatalf("installing the Kustomization CRD: %v", err)
	}

	ports := make([]string, 2)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = l.Addr().String()
		_ = l.Close()
	}
	log, err := os.Create(filepath.Join(suite.logDir, "kustomize-controller.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary,
		// v1.9.6 refuses sourceRef.kind ExternalArtifact without it.
		"--feature-gates=ExternalArtifact=true",
		"--enable-leader-election=false", "--watch-all-namespaces=true", "--events-addr=",
		"--metrics-addr="+ports[0], "--health-addr="+ports[1], "--log-level=debug",
	)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+suite.env.Kubeconfig())
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		t.Fatalf("starting kustomize-controller: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = log.Close()
	})
	NewWithT(t).Eventually(func(g Gomega) {
		select {
		case <-done:
			StopTrying("kustomize-controller exited; its log is " + log.Name()).Now()
		default:
		}
		resp, err := http.Get("http://" + ports[1] + "/readyz")
		g.Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}).WithTimeout(deliveryTimeout).WithPolling(200 * time.Millisecond).Should(Succeed())
}

// runHackScript runs a script that prints a path on its last line.
func runHackScript(t *testing.T, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	return lines[len(lines)-1]
}
