package cli_test

import (
	"bytes"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/cli"
)

// runAs runs the program as the file name argv0 starts it, as main does.
func runAs(t *testing.T, argv0 string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	inv := cli.Invoked(append([]string{argv0}, args...))
	root := cli.NewRootCommand(cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	inv.Name(root)
	code := cli.Execute(root, append([]string{"--kubeconfig", env.Kubeconfig()}, inv.Args...), &errOut)
	return result{out: out.String(), err: errOut.String(), code: code}
}

// Started as kubectl-kcl (kubectl's plugin), kubectl_complete-kcl (kubectl's completion
// helper) or flux-kcl (a Flux CLI plugin, RFC-0013), the program runs the same commands,
// with the same output; help calls it by the name the user typed.
func TestPluginNamesStartTheSameCommands(t *testing.T) {
	g, _ := setup(t)
	ns := namespace(t, "plugin")
	rev := publish(t, ns, "repo", 1, program(configMap("settings", `{a = "1"}`)))
	readyAt(t, g, newRun(t, ns, "web", "repo", nil), rev)

	want := run(t, "get", "kclruns", "-n", ns)
	g.Expect(want.code).To(Equal(0), want.err)
	for _, tc := range []struct{ argv0, display string }{
		{"/usr/local/bin/kubectl-kcl", "kubectl kcl"},
		{"/home/me/.fluxcd/plugins/flux-kcl", "flux kcl"},
		{`C:\plugins\flux-kcl.exe`, "flux kcl"},
	} {
		got := runAs(t, tc.argv0, "get", "kclruns", "-n", ns)
		g.Expect(got).To(Equal(want), tc.argv0)

		help := runAs(t, tc.argv0, "get", "kclruns", "--help")
		g.Expect(help.out).To(ContainSubstring("Usage:\n  "+tc.display+" get kclruns [NAME] [flags]"), tc.argv0)
		g.Expect(help.out).To(ContainSubstring(tc.display+" get kclruns -n demo"), "examples name the plugin")

		// flux runs `flux-kcl __complete …` for `flux kcl <TAB>`; kubectl runs kubectl_complete-kcl.
		complete := runAs(t, tc.argv0, "__complete", "get", "kclrun", "-n", ns, "")
		g.Expect(complete.out).To(HavePrefix("web\n"), tc.argv0)
	}
	complete := runAs(t, "kubectl_complete-kcl", "get", "kclrun", "-n", ns, "")
	g.Expect(complete.code).To(Equal(0), complete.err)
	g.Expect(complete.out).To(HavePrefix("web\n"))

	plain := cli.Invoked([]string{"flux-kcl-controller", "get"})
	g.Expect(plain.Plugin).To(BeFalse())
	g.Expect(cli.Invoked([]string{"kubectl-kcl"}).Plugin).To(BeTrue())
}
