package cli_test

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// build --kclrun and diff kclrun prepare the objects as the applier does for a KCLRun with
// spec.targetNamespace and spec.params: a namespaced object the program puts in another
// namespace moves to the target, a cluster-scoped one keeps no namespace, a RoleBinding's
// "default" subject points at the target, and option("params") has the KCLRun's params.
// Every built object is the live one (names, namespaces, labels, fields), and diff of the
// applied program shows nothing.
func TestBuildAndDiffWithTargetNamespace(t *testing.T) {
	g, ctx := setup(t)
	ns := namespace(t, "tns")
	target := namespace(t, "tns-target")
	files := program(
		`{apiVersion = "v1", kind = "ConfigMap", metadata = {name = "moved", namespace = "elsewhere"}, data = {tier = option("params").tier}}`,
		`{apiVersion = "rbac.authorization.k8s.io/v1", kind = "ClusterRole", metadata = {name = "`+target+`-reader", namespace = "elsewhere"}, rules = [{apiGroups = [""], resources = ["configmaps"], verbs = ["get"]}]}`,
		`{apiVersion = "rbac.authorization.k8s.io/v1", kind = "RoleBinding", metadata.name = "readers", roleRef = {apiGroup = "rbac.authorization.k8s.io", kind = "ClusterRole", name = "`+target+`-reader"}, subjects = [{kind = "ServiceAccount", name = "default", namespace = "elsewhere"}]}`,
	)
	rev := publish(t, ns, "repo", 1, files)
	web := newRun(t, ns, "web", "repo", func(r *v1alpha1.KCLRun) {
		r.Spec.TargetNamespace = target
		r.Spec.Params = map[string]runtime.RawExtension{"tier": {Raw: []byte(`"gold"`)}}
		r.Spec.CommonMetadata = &v1alpha1.CommonMetadata{Labels: map[string]string{"team": "web"}}
	})
	readyAt(t, g, web, rev)

	r := run(t, "build", writeDir(t, files), "--kclrun", "web", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	docs := strings.Split(r.out, "---\n")
	g.Expect(docs).To(HaveLen(3))
	namespaces := map[string]string{}
	for _, doc := range docs {
		built := &unstructured.Unstructured{}
		g.Expect(yaml.Unmarshal([]byte(doc), &built.Object)).To(Succeed())
		namespaces[built.GetKind()] = built.GetNamespace()
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(built.GroupVersionKind())
		g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(built), live)).To(Succeed(), "%s/%s/%s", built.GetKind(), built.GetNamespace(), built.GetName())
		g.Expect(built.GetLabels()).To(Equal(live.GetLabels()))
		expectSubset(g, built.Object, live.Object, built.GetKind())
	}
	g.Expect(namespaces).To(Equal(map[string]string{"ConfigMap": target, "ClusterRole": "", "RoleBinding": target}))
	g.Expect(r.out).To(ContainSubstring("tier: gold\n"))
	g.Expect(r.out).To(ContainSubstring("namespace: " + target + "\n"))
	g.Expect(r.out).NotTo(ContainSubstring("elsewhere"))

	r = run(t, "diff", "kclrun", "web", "-n", ns, "--path", writeDir(t, files))
	g.Expect(r.code).To(Equal(0), "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	g.Expect(r.out).To(BeEmpty())
}
