package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

// build DIR --path ./dev renders a base/overlay layout (dev/kcl.yaml lists
// ../base/base.k) with DIR as the artifact, and -O deletes a key the program
// set with a dotted key; without --path the sibling folder is outside DIR and
// refused, as the controller refuses what lies outside the artifact (issue 30).
func TestBuildOfASiblingLayout(t *testing.T) {
	g, _ := setup(t)
	dir := t.TempDir()
	for name, src := range map[string]string{
		"base/base.k": "schema ConfigMap:\n    apiVersion: str = \"v1\"\n    kind: str = \"ConfigMap\"\n    metadata: {str:any}\n    data: {str:str} = {}\n\n" +
			"_cm: ConfigMap {\n    metadata.name = \"layout\"\n    data.from = \"base\"\n}\nitems = [_cm]\n",
		"dev/main.k":   "_cm: ConfigMap {\n    metadata.labels.env = \"dev\"\n    metadata.labels.drop = \"me\"\n}\n",
		"dev/kcl.yaml": "kcl_cli_configs:\n  files:\n    - ../base/base.k\n    - main.k\n",
	} {
		g.Expect(os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)).To(Succeed())
		g.Expect(os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)).To(Succeed())
	}
	r := run(t, "build", dir, "--path", "./dev", "-Y", "kcl.yaml", "-O", "_cm.metadata.labels.drop-")
	g.Expect(r.code).To(Equal(0), r.err)
	g.Expect(r.out).To(Equal("apiVersion: v1\ndata:\n  from: base\nkind: ConfigMap\nmetadata:\n  labels:\n    env: dev\n  name: layout\n"))

	r = run(t, "build", filepath.Join(dir, "dev"), "-Y", "kcl.yaml")
	g.Expect(r.code).NotTo(Equal(0))
	g.Expect(r.err).To(ContainSubstring("PathRefused"))
	g.Expect(r.err).To(ContainSubstring("../base/base.k"))
}
