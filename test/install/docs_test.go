package install_test

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

// The chart README's install commands are the ones the tests render: the release name and
// namespace of renderChart, deploy/default, install/rc.yaml.
func TestDocumentedCommandsMatchTheTests(t *testing.T) {
	g := NewWithT(t)
	readme, err := os.ReadFile(filepath.Join(chartDir(), "README.md"))
	g.Expect(err).NotTo(HaveOccurred())
	for _, cmd := range []string{
		"helm install " + releaseName + " ./charts/flux-kcl-controller --namespace " + releaseNamespace + " --create-namespace",
		"kubectl apply -k deploy/default",
		"kubectl apply -f install/rc.yaml",
	} {
		g.Expect(string(readme)).To(ContainSubstring(cmd))
	}
	for _, path := range []string{"deploy/default/kustomization.yaml", "install/rc.yaml", "deploy/components/alert-kclrun/kustomization.yaml"} {
		g.Expect(filepath.Join(repoRoot, path)).To(BeAnExistingFile())
	}
}
