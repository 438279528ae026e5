package cli_test

import (
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// writeTree writes files (paths with folders) into a new folder, as a checkout.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func secretProgram(password string) string {
	return fmt.Sprintf(`{apiVersion = "v1", kind = "Secret", metadata.name = "creds", stringData = {password = %q}}`, password)
}

// bigConfigMap has n keys: its diff is far longer than a pull-request comment.
func bigConfigMap(name string, n int) string {
	var data []string
	for i := range n {
		data = append(data, fmt.Sprintf(`k%d = "value number %d of a very large ConfigMap"`, i, i))
	}
	return configMap(name, "{"+strings.Join(data, ", ")+"}")
}

// diff --all compiles every KCLRun of one source from a checkout, each at its own
// spec.path, and -o markdown writes one comment: a collapsed section per KCLRun, Secret
// values masked, a broken program's file:line, a cut with a note; exit 0, 1 or 2.
func TestDiffAllKCLRunsOfOneSource(t *testing.T) {
	g, _ := setup(t)
	ns := namespace(t, "diffall")
	applied := map[string]string{
		"apps/a/main.k": program(configMap("a", `{v = "1"}`), secretProgram("old-password"))["main.k"],
		"apps/b/main.k": program(configMap("b", `{v = "1"}`))["main.k"],
	}
	rev := publish(t, ns, "fleet", 1, applied)
	other := publish(t, ns, "other", 1, program(configMap("o", `{v = "1"}`)))
	at := func(path string) func(*v1alpha1.KCLRun) {
		return func(r *v1alpha1.KCLRun) { r.Spec.Path, r.Spec.TargetNamespace = path, ns }
	}
	readyAt(t, g, newRun(t, ns, "a", "fleet", at("apps/a")), rev)
	readyAt(t, g, newRun(t, ns, "b", "fleet", at("apps/b")), rev)
	readyAt(t, g, newRun(t, ns, "o", "other", at("")), other)
	diffAll := func(files map[string]string, extra ...string) result {
		return run(t, append([]string{"diff", "kclrun", "--all", "--source", "GitRepository/fleet", "-n", ns, "--path", writeTree(t, files)}, extra...)...)
	}

	r := diffAll(applied, "-o", "markdown")
	g.Expect(r.code).To(Equal(0), "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	g.Expect(r.out).To(ContainSubstring("2 KCLRuns: 0 with changes, 2 without, 0 failed."))

	// The pull request changes a's ConfigMap and Secret; b and the other source's KCLRun stay.
	head := maps.Clone(applied)
	head["apps/a/main.k"] = program(configMap("a", `{v = "2"}`), secretProgram("new-password"))["main.k"]
	r = diffAll(head, "-o", "markdown")
	g.Expect(r.code).To(Equal(1), r.err)
	comment := r.out
	g.Expect(comment).To(HavePrefix("### flux-kcl-controller diff of `GitRepository/" + ns + "/fleet`\n"))
	g.Expect(comment).To(ContainSubstring("<details><summary>✏️ <code>" + ns + "/a</code> (spec.path <code>apps/a</code>): 2 changes</summary>"))
	g.Expect(comment).To(ContainSubstring("-  v: \"1\"\n+  v: \"2\""))
	g.Expect(comment).To(ContainSubstring("<details><summary>✅ <code>" + ns + "/b</code> (spec.path <code>apps/b</code>): no changes</summary>"))
	g.Expect(comment).NotTo(ContainSubstring("/o</code>"))
	for _, secret := range []string{"old-password", "new-password"} {
		g.Expect(comment).NotTo(ContainSubstring(secret))
		g.Expect(comment).NotTo(ContainSubstring(base64.StdEncoding.EncodeToString([]byte(secret))))
	}

	// The text output, and -A (KCLRuns of any namespace on the source in -n), say the same.
	r = diffAll(head, "-A")
	g.Expect(r.code).To(Equal(1), r.err)
	g.Expect(r.out).To(ContainSubstring("=== KCLRun " + ns + "/a (GitRepository/" + ns + "/fleet, spec.path \"apps/a\")\n► ConfigMap/" + ns + "/a drifted"))
	g.Expect(r.out).To(ContainSubstring("=== KCLRun " + ns + "/b (GitRepository/" + ns + "/fleet, spec.path \"apps/b\")\nno changes"))

	// A pull request that breaks b: the comment shows the error at its file:line, exit 2.
	head["apps/b/main.k"] = "a = \n"
	r = diffAll(head, "-o", "markdown")
	g.Expect(r.code).To(Equal(2), r.out)
	g.Expect(r.out).To(MatchRegexp(`<details open><summary>❌ <code>` + ns + `/b</code> \(spec.path <code>apps/b</code>\): failed</summary>\n\n` + "````" + `\n.*main.k:1:`))
	g.Expect(r.out).To(ContainSubstring("2 KCLRuns: 1 with changes, 0 without, 1 failed."))
	g.Expect(r.err).To(ContainSubstring("1 of 2 KCLRuns on GitRepository/" + ns + "/fleet could not be diffed"))

	// A diff longer than a comment is cut, and says so.
	head["apps/a/main.k"] = program(bigConfigMap("a", 3000))["main.k"]
	r = diffAll(head, "-o", "markdown")
	g.Expect(r.code).To(Equal(2), r.err)
	g.Expect(len(r.out)).To(BeNumerically("<=", 65536))
	g.Expect(r.out).To(MatchRegexp(`… cut here: \d+ more characters\n`))
	g.Expect(r.out).To(MatchRegexp("Cut to stay within GitHub's 65536-character comment limit: \\d+ characters of the diff of " + ns + "/a is not shown"))
	g.Expect(r.out).To(ContainSubstring("❌ <code>"+ns+"/b</code>"), "the sections after the cut one still fit or are named")

	oneClearLine(t, run(t, "diff", "kclrun", "--all", "-n", ns, "--path", "."), 2, "--all needs --source KIND/NAME")
	oneClearLine(t, run(t, "diff", "kclrun", "--all", "--source", "HelmRepository/x", "-n", ns, "--path", "."), 2, `kind "HelmRepository" is not`)
	oneClearLine(t, run(t, "diff", "kclrun", "--all", "--source", "GitRepository/fleet", "-o", "json", "-n", ns, "--path", "."), 2, `unsupported output format "json"`)
}
