package applier_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// publishFiles serves files as a new artifact revision of the source.
func publishFiles(t testing.TB, namespace, source string, files map[string]string) *meta.Artifact {
	t.Helper()
	n := revisionSeq.Add(1)
	path := artifactserver.ArtifactPath("GitRepository", namespace, source, fmt.Sprintf("rev-%d.tar.gz", n))
	artifact, err := artifacts.PublishFiles(path, files, fmt.Sprintf("main@sha1:%040d", n))
	if err != nil {
		t.Fatal(err)
	}
	setArtifact(t, namespace, source, artifact)
	return artifact
}

// A program importing a private k8s-like package, with kcl.mod and
// kcl.mod.lock, through the whole applier on the real apiserver: the KCLRun
// with the registry Secret is applied and reports the locked package; a KCLRun
// of another namespace without credentials, and one whose lock records another
// sum, are held with clear reasons and no secret in any message.
func TestPrivatePackageFromALockedKclMod(t *testing.T) {
	const password = "registry-pass-7d1f"
	reg := registrytest.StartWithAuth(t, "tenant-a", password)
	digest := reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	sum, err := mod.Sum(registrytest.WriteFiles(t, registrytest.K8sLike("1.29")))
	if err != nil {
		t.Fatal(err)
	}
	program := func(sum string) map[string]string {
		return map[string]string{
			"kcl.mod": fmt.Sprintf("[package]\nname = \"app\"\n\n[dependencies]\nk8s = { oci = \"oci://%s/kcl-lang/k8s\", tag = \"1.29\" }\n", reg.Host),
			"kcl.mod.lock": fmt.Sprintf("[dependencies]\n  [dependencies.k8s]\n    name = \"k8s\"\n    full_name = \"k8s_1.29\"\n    version = \"1.29\"\n"+
				"    sum = %q\n    reg = %q\n    repo = \"kcl-lang/k8s\"\n    oci_tag = \"1.29\"\n", sum, reg.Host),
			"main.k": `import k8s.api.apps.v1 as apps

items = [apps.Deployment {
    metadata.name = "web"
    spec = {
        selector.matchLabels.app = "web"
        template.metadata.labels.app = "web"
        template.spec.containers = [{name = "web", image = "nginx:1.25"}]
    }
}]
`,
		}
	}
	g := NewWithT(t)
	ctx := context.Background()
	withSecret := func(o *v1alpha1.KCLRun) {
		o.Spec.Config = &v1alpha1.ConfigSpec{RegistrySecretRef: &meta.LocalObjectReference{Name: "registry"}}
	}

	nsA := newNamespace(t)
	g.Expect(env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: "registry"},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: reg.DockerConfig()},
	})).To(Succeed())
	a := publishFiles(t, nsA, "app", program(sum))
	createKCLRun(t, nsA, "app", "app", withSecret)
	obj := readyAt(t, nsA, "app", a.Revision)
	g.Expect(obj.Status.Packages).To(Equal([]v1alpha1.ResolvedPackage{{
		Name: "k8s", Version: "1.29", Source: "oci://" + reg.Host + "/kcl-lang/k8s:1.29", Digest: digest, Sum: sum, Locked: true,
	}}))
	deploy := &appsv1.Deployment{}
	g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: nsA, Name: "web"}, deploy)).To(Succeed())
	g.Expect(*deploy.Spec.Replicas).To(Equal(int32(1))) // the package schema's default

	// Another tenant, same program, no credentials: the cached package is not theirs.
	nsB := newNamespace(t)
	publishFiles(t, nsB, "app", program(sum))
	createKCLRun(t, nsB, "app", "app")
	// A lock that records another sum: the package is refused.
	nsC := newNamespace(t)
	g.Expect(env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: nsC, Name: "registry"},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: reg.DockerConfig()},
	})).To(Succeed())
	publishFiles(t, nsC, "app", program("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="))
	createKCLRun(t, nsC, "app", "app", withSecret)

	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, nsB, "app"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(v1alpha1.ArtifactFailedReason))
		g.Expect(ready.Message).To(ContainSubstring("dependency k8s"))
		g.Expect(ready.Message).To(ContainSubstring("access to the package denied"))
	}, 2*time.Minute, 200*time.Millisecond).Should(Succeed())
	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, nsC, "app"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(v1alpha1.CompileFailedReason))
		g.Expect(ready.Message).To(ContainSubstring("DependencyVerificationFailed"))
		g.Expect(ready.Message).To(ContainSubstring("checksum mismatch"))
	}, 2*time.Minute, 200*time.Millisecond).Should(Succeed())
	// A Secret created after its KCLRun: held, then retried until it exists.
	nsD := newNamespace(t)
	d := publishFiles(t, nsD, "app", program(sum))
	createKCLRun(t, nsD, "app", "app", withSecret)
	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, nsD, "app"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(v1alpha1.ArtifactFailedReason))
		g.Expect(ready.Message).To(ContainSubstring("registry secret '" + nsD + "/registry' not found"))
	}, 2*time.Minute, 200*time.Millisecond).Should(Succeed())
	g.Expect(env.Client.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: nsD, Name: "registry"},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: reg.DockerConfig()},
	})).To(Succeed())
	readyAt(t, nsD, "app", d.Revision)

	for _, ns := range []string{nsB, nsC} {
		g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, &appsv1.Deployment{})).NotTo(Succeed())
	}
	for _, ns := range []string{nsA, nsB, nsC, nsD} {
		for _, e := range events.forObject(ns, "app") {
			g.Expect(strings.Contains(e.Message, password)).To(BeFalse(), e.Message)
		}
	}
	assertNoOverlap(t)
}
