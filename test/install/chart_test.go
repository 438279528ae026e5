package install_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// ciValuesFiles are the chart's values sets under test: ci/*-values.yaml.
func ciValuesFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(chartDir(), "ci", "*-values.yaml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("want the default, all-in-one and large-cluster values in ci/, got %v (%v)", files, err)
	}
	for i, f := range files {
		files[i] = filepath.Join("ci", filepath.Base(f))
	}
	return files
}

// Every object the chart renders for each values set is accepted by the apiserver.
func TestChartRendersObjectsTheAPIServerAccepts(t *testing.T) {
	needsAPIServer(t)
	for _, values := range ciValuesFiles(t) {
		t.Run(filepath.Base(values), func(t *testing.T) {
			g := NewWithT(t)
			objs := renderChart(t, []string{values}, nil)
			g.Expect(objs).NotTo(BeEmpty())
			g.Expect(dryRunApply(context.Background(), objs)).To(Succeed())
			checkWorkloads(t, objs)
		})
	}
}

// The values sets render what they promise.
func TestChartValuesSets(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		g := NewWithT(t)
		objs := renderChart(t, []string{"ci/default-values.yaml"}, nil)
		for _, name := range []string{"kcl-watcher", "kcl-resolver", "kcl-compiler", "kcl-applier"} {
			g.Expect(find(objs, "Deployment", name)).NotTo(BeNil(), name)
		}
		g.Expect(find(objs, "StatefulSet", "kcl-nats")).NotTo(BeNil())
		g.Expect(find(objs, "CustomResourceDefinition", "kclruns.krm.kcl.dev.fluxcd")).NotTo(BeNil())
		g.Expect(find(objs, "CustomResourceDefinition", "imagerollouts.krm.kcl.dev.fluxcd")).NotTo(BeNil())
		g.Expect(find(objs, "ClusterRoleBinding", "flux-kcl-controller-applier-cluster-admin")).NotTo(BeNil())
		for _, kind := range []string{"PodDisruptionBudget", "ServiceMonitor", "Job"} {
			g.Expect(kinds(objs)).NotTo(ContainElement(kind))
		}
		for _, name := range []string{"kcl-compiler", "kcl-resolver"} {
			svc := find(objs, "Service", name)
			g.Expect(svc).NotTo(BeNil())
			g.Expect(nestedString(svc, "spec", "clusterIP")).To(Equal("None"), "headless for client-side balancing")
		}
	})
	t.Run("all-in-one", func(t *testing.T) {
		g := NewWithT(t)
		objs := renderChart(t, []string{"ci/all-in-one-values.yaml"}, nil)
		g.Expect(find(objs, "Deployment", "flux-kcl-controller")).NotTo(BeNil())
		g.Expect(kinds(objs)).NotTo(ContainElement("StatefulSet"))
		g.Expect(find(objs, "Deployment", "kcl-applier")).To(BeNil())
		g.Expect(find(objs, "PersistentVolumeClaim", "flux-kcl-controller-data")).NotTo(BeNil())
	})
	t.Run("large-cluster", func(t *testing.T) {
		g := NewWithT(t)
		objs := renderChart(t, []string{"ci/large-cluster-values.yaml"}, nil)
		g.Expect(kinds(objs)).NotTo(ContainElement("StatefulSet"), "external NATS")
		compiler := deployment(t, find(objs, "Deployment", "kcl-compiler"))
		g.Expect(*compiler.Spec.Replicas).To(BeNumerically("==", 6))
		g.Expect(compiler.Spec.Template.Spec.Affinity).NotTo(BeNil())
		g.Expect(compiler.Spec.Template.Spec.Tolerations).To(HaveLen(1))
		g.Expect(*deployment(t, find(objs, "Deployment", "kcl-resolver")).Spec.Replicas).To(BeNumerically("==", 3))
		for _, name := range []string{"kcl-watcher", "kcl-resolver", "kcl-compiler", "kcl-applier"} {
			g.Expect(find(objs, "PodDisruptionBudget", name)).NotTo(BeNil(), name)
		}
		applier := deployment(t, find(objs, "Deployment", "kcl-applier"))
		g.Expect(applier.Spec.Template.Spec.Containers[0].Args).To(ContainElements(
			"--nats-url=nats://nats.nats-system.svc:4222", "--default-service-account=kcl-tenant", "--no-cross-namespace-refs"))
		g.Expect(find(objs, "ClusterRoleBinding", "flux-kcl-controller-applier-cluster-admin")).To(BeNil(), "locked down")
		g.Expect(find(objs, "Job", "flux-kcl-controller-alert-kclrun")).NotTo(BeNil())
	})
}

// The ServiceMonitor is off in the tested sets (no Prometheus Operator CRDs in the test
// apiserver); switched on, it renders and selects the metrics Service.
func TestChartRendersServiceMonitor(t *testing.T) {
	needsAPIServer(t)
	g := NewWithT(t)
	objs := renderChart(t, nil, map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}}})
	sm := find(objs, "ServiceMonitor", "flux-kcl-controller")
	g.Expect(sm).NotTo(BeNil())
	g.Expect(sm.GetAPIVersion()).To(Equal("monitoring.coreos.com/v1"))
	g.Expect(nestedString(sm, "spec", "selector", "matchLabels", "app.kubernetes.io/name")).To(Equal("flux-kcl-controller-metrics"))
	var rest []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != "ServiceMonitor" {
			rest = append(rest, o)
		}
	}
	g.Expect(find(rest, "Service", "flux-kcl-controller-metrics")).NotTo(BeNil())
	g.Expect(dryRunApply(context.Background(), rest)).To(Succeed())
}

// checkWorkloads holds every pod of the install to the hardening rules, and every service
// container's args to the flags its binary defines.
func checkWorkloads(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		var pod *corev1.PodSpec
		switch o.GetKind() {
		case "Deployment":
			pod = &deployment(t, o).Spec.Template.Spec
		case "StatefulSet":
			var s appsv1.StatefulSet
			convert(t, o, &s)
			pod = &s.Spec.Template.Spec
		case "Job":
			var j batchv1.Job
			convert(t, o, &j)
			pod = &j.Spec.Template.Spec
		default:
			continue
		}
		t.Run(o.GetKind()+"/"+o.GetName(), func(t *testing.T) {
			checkPod(t, o.GetKind(), pod)
		})
	}
}

func checkPod(t *testing.T, kind string, pod *corev1.PodSpec) {
	g := NewWithT(t)
	g.Expect(pod.SecurityContext).NotTo(BeNil())
	g.Expect(pod.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
	g.Expect(pod.SecurityContext.SeccompProfile).To(HaveValue(HaveField("Type", corev1.SeccompProfileTypeRuntimeDefault)))
	for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
		sc := c.SecurityContext
		g.Expect(sc).NotTo(BeNil(), c.Name)
		g.Expect(sc.AllowPrivilegeEscalation).To(HaveValue(BeFalse()), c.Name)
		g.Expect(sc.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()), c.Name)
		g.Expect(sc.Capabilities).To(HaveValue(HaveField("Drop", ConsistOf(corev1.Capability("ALL")))), c.Name)
		if kind == "Job" {
			continue
		}
		g.Expect(c.LivenessProbe).NotTo(BeNil(), c.Name)
		g.Expect(c.ReadinessProbe).NotTo(BeNil(), c.Name)
		binary, ok := serviceBinary(c.Image)
		if !ok {
			continue // NATS
		}
		g.Expect(c.LivenessProbe.HTTPGet).To(HaveValue(HaveField("Path", "/healthz")))
		g.Expect(c.ReadinessProbe.HTTPGet).To(HaveValue(HaveField("Path", "/readyz")))
		g.Expect(c.VolumeMounts).To(ContainElement(HaveField("MountPath", "/tmp")), "writable /tmp on a read-only root")
		flags, err := parseArgs(binary, c.Args)
		g.Expect(err).NotTo(HaveOccurred())
		// The probes and the metrics port reach what the binary serves.
		health, metrics := flags.healthAndMetrics(binary)
		g.Expect(c.Ports).To(ContainElement(And(HaveField("Name", "healthz"), HaveField("ContainerPort", portOf(health)))))
		g.Expect(c.Ports).To(ContainElement(And(HaveField("Name", "http-metrics"), HaveField("ContainerPort", portOf(metrics)))))
	}
}

// serviceBinary is the binary an image runs: the last path element of the repository.
func serviceBinary(image string) (string, bool) {
	repo := image
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	name := repo[strings.LastIndex(repo, "/")+1:]
	switch name {
	case "watcher", "resolver", "compiler", "applier", "flux-kcl-controller":
		return name, true
	}
	return "", false
}

func (f *serviceFlags) healthAndMetrics(binary string) (health, metrics string) {
	switch binary {
	case "watcher":
		return f.Watcher.HealthAddr, f.Watcher.MetricsAddr
	case "applier":
		return f.Applier.HealthAddr, f.Applier.MetricsAddr
	case "compiler":
		return f.Compiler.HealthAddr, f.Compiler.MetricsAddr
	case "resolver":
		return f.Resolver.HealthAddr, f.Resolver.MetricsAddr
	}
	return f.AllInOne.HealthAddr, f.AllInOne.MetricsAddr
}

func portOf(addr string) int32 {
	var port int32
	for _, r := range addr[strings.LastIndex(addr, ":")+1:] {
		port = port*10 + int32(r-'0')
	}
	return port
}

func kinds(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind())
	}
	return out
}

func deployment(t testing.TB, o *unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	if o == nil {
		t.Fatal("no such Deployment")
	}
	var d appsv1.Deployment
	convert(t, o, &d)
	return &d
}

func convert(t testing.TB, o *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

func nestedString(o *unstructured.Unstructured, fields ...string) string {
	s, _, _ := unstructured.NestedString(o.Object, fields...)
	return s
}
