package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// The program of the diff and build tests: every input a KCLRun gives (settings file,
// arguments from config, a ConfigMap and a Secret) lands in a ConfigMap.
func inputsProgram(image, extra string) map[string]string {
	files := program(
		deployment("web", image, ""),
		configMap("inputs", `{region = option("region"), env = option("env"), tier = option("tier"), token = option("token")}`),
		`{apiVersion = "v1", kind = "Secret", metadata.name = "creds", stringData = {password = option("password")}}`,
		extra,
	)
	files["settings.yaml"] = "kcl_options:\n  - key: region\n    value: eu\n"
	return files
}

func inputsRun(ns string) func(*v1alpha1.KCLRun) {
	return func(r *v1alpha1.KCLRun) {
		r.Spec.TargetNamespace = ns
		r.Spec.Config = &v1alpha1.ConfigSpec{Settings: []string{"settings.yaml"}, Arguments: []string{"env=prod"}, SortKeys: true}
		r.Spec.ArgumentsReferences = []v1alpha1.ArgumentReference{{Kind: "ConfigMap", Name: "args"}, {Kind: "Secret", Name: "secret-args"}}
		r.Spec.CommonMetadata = &v1alpha1.CommonMetadata{Labels: map[string]string{"team": "web"}}
	}
}

func createArguments(t *testing.T, ns, password string) {
	t.Helper()
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "args"}, Data: map[string]string{"tier": "gold"}}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "secret-args"},
		StringData: map[string]string{"token": "tok-" + password, "password": password}}
	for _, o := range []client.Object{cm, sec} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// diff compiles the local copy with the KCLRun's inputs and dry-runs it: a changed image,
// a new object, a pruned object, Secret data masked, exit 1; the program the controller
// applied shows no difference, exit 0 (what diff renders is what the controller applied).
func TestDiffKCLRun(t *testing.T) {
	g, _ := setup(t)
	ns := namespace(t, "diff")
	createArguments(t, ns, "hunter2-secret")
	applied := inputsProgram("nginx:1.7.8", configMap("old", `{x = "1"}`))
	rev := publish(t, ns, "repo", 1, applied)
	web := newRun(t, ns, "web", "repo", inputsRun(ns))
	readyAt(t, g, web, rev)

	r := run(t, "diff", "kclrun", "web", "-n", ns, "--path", writeDir(t, applied))
	g.Expect(r.code).To(Equal(0), "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	g.Expect(r.out).To(BeEmpty())

	changed := inputsProgram("nginx:1.7.9", configMap("new", `{x = "1"}`))
	changed["main.k"] = strings.Replace(changed["main.k"], `password = option("password")`, `password = option("password") + "-rotated"`, 1)
	r = run(t, "diff", "kclrun", "web", "-n", ns, "--path", writeDir(t, changed))
	g.Expect(r.code).To(Equal(1), "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	g.Expect(r.out).To(ContainSubstring("► Deployment/" + ns + "/web drifted\n"))
	g.Expect(r.out).To(ContainSubstring("-      - image: nginx:1.7.8\n+      - image: nginx:1.7.9\n"))
	g.Expect(r.out).To(ContainSubstring("► ConfigMap/" + ns + "/new created\n"))
	g.Expect(r.out).To(ContainSubstring("► ConfigMap/" + ns + "/old deleted\n"))
	g.Expect(r.out).To(ContainSubstring("► Secret/" + ns + "/creds drifted\n"))
	g.Expect(r.out).To(ContainSubstring("*** (before)"))
	g.Expect(r.out).To(ContainSubstring("*** (after)"))
	g.Expect(r.out).NotTo(ContainSubstring("ConfigMap/" + ns + "/inputs"))
	g.Expect(r.out).NotTo(ContainSubstring("hunter2"))
	g.Expect(r.err).To(HaveSuffix("⚠️ identified at least one change, exiting with non-zero exit code\n"))

	bad := writeDir(t, map[string]string{"main.k": "a = \n", "settings.yaml": applied["settings.yaml"]})
	oneClearLine(t, run(t, "diff", "kclrun", "web", "-n", ns, "--path", bad), 2, "main.k:1:")
	oneClearLine(t, run(t, "diff", "kclrun", "nothere", "-n", ns, "--path", bad), 2, `KCLRun "nothere" not found`)
}

// build --kclrun renders the objects the controller applied: each field it prints is the
// live object's, Secret-sourced argument values masked.
func TestBuildWithKCLRun(t *testing.T) {
	g, ctx := setup(t)
	ns := namespace(t, "build")
	createArguments(t, ns, "hunter2-secret")
	files := inputsProgram("nginx:1.7.8", "")
	rev := publish(t, ns, "repo", 1, files)
	web := newRun(t, ns, "web", "repo", inputsRun(ns))
	readyAt(t, g, web, rev)

	r := run(t, "build", writeDir(t, files), "--kclrun", "web", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).NotTo(ContainSubstring("hunter2"))
	g.Expect(r.out).To(ContainSubstring("token: tok-***\n"))
	g.Expect(r.out).To(ContainSubstring("password: '***'\n"))
	docs := strings.Split(r.out, "---\n")
	g.Expect(docs).To(HaveLen(3))
	for _, doc := range docs {
		built := &unstructured.Unstructured{}
		g.Expect(yaml.Unmarshal([]byte(doc), &built.Object)).To(Succeed())
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(built.GroupVersionKind())
		g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(built), live)).To(Succeed())
		g.Expect(built.GetLabels()).To(Equal(live.GetLabels()))
		if built.GetKind() == "Secret" {
			continue // stringData is write-only; the diff test covers it
		}
		if built.GetName() == "inputs" {
			data, _, _ := unstructured.NestedStringMap(live.Object, "data")
			g.Expect(data).To(Equal(map[string]string{"region": "eu", "env": "prod", "tier": "gold", "token": "tok-hunter2-secret"}))
			continue
		}
		expectSubset(g, built.Object, live.Object, built.GetKind())
	}

	oneClearLine(t, run(t, "build", writeDir(t, map[string]string{"main.k": "a = \n"})), 1, "main.k:1:")
}

// expectSubset checks every field of want is in got with the same value.
func expectSubset(g Gomega, want, got map[string]any, where string) {
	for k, v := range want {
		gv, ok := got[k]
		g.Expect(ok).To(BeTrue(), "%s.%s missing from the live object", where, k)
		switch v := v.(type) {
		case map[string]any:
			gm, ok := gv.(map[string]any)
			g.Expect(ok).To(BeTrue(), "%s.%s", where, k)
			expectSubset(g, v, gm, where+"."+k)
		case []any:
			gl, ok := gv.([]any)
			g.Expect(ok).To(BeTrue(), "%s.%s", where, k)
			g.Expect(gl).To(HaveLen(len(v)), "%s.%s", where, k)
			for i := range v {
				if m, ok := v[i].(map[string]any); ok {
					expectSubset(g, m, gl[i].(map[string]any), where+"."+k)
				} else {
					g.Expect(gl[i]).To(BeEquivalentTo(v[i]), "%s.%s[%d]", where, k, i)
				}
			}
		default:
			g.Expect(gv).To(BeEquivalentTo(v), "%s.%s", where, k)
		}
	}
}
