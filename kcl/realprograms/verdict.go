package realprograms

import "testing"

// CheckVerdict fails t unless an entry point's run of p agrees with the
// official engine as p says it should: same output (same), or still a known
// difference (KNOWN_DIFF), whose test is then skipped. entry names the entry
// point in failures; got and want are the outputs shown when they differ.
func CheckVerdict(t testing.TB, p Program, entry string, err error, same bool, got, want string) {
	t.Helper()
	switch {
	case p.KnownDiff != "" && err == nil && same:
		t.Fatalf("output now equals the official engine's: delete %s/KNOWN_DIFF", p.Dir)
	case p.KnownDiff != "":
		t.Skipf("known difference: %s", p.KnownDiff)
	case err != nil:
		t.Fatalf("%s: %v", entry, err)
	case !same:
		t.Fatalf("%s: output differs from the official engine's\n--- got\n%s\n--- want\n%s", entry, got, want)
	}
}

// ControllerObjects returns the official engine's objects of p for an entry
// point that compiles a program folder as the controller does (the compiler
// service, `flux-kcl-controller build`), and skips t when p is not such a
// program.
func ControllerObjects(t testing.TB, p Program) []map[string]any {
	t.Helper()
	want, ok, err := p.ExpectedObjects()
	switch {
	case err != nil:
		t.Fatal(err)
	case !ok:
		t.Skip("the output is not Kubernetes objects, which the controller refuses")
	case !p.RunsFromFolder() || len(p.External) > 0:
		t.Skip("the program needs files or -E packages its folder does not name")
	}
	return want
}
