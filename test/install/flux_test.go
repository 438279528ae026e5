package install_test

import (
	"context"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// install/rc.yaml is valid against the HelmRelease (helm.toolkit.fluxcd.io/v2) and
// GitRepository (source.toolkit.fluxcd.io/v1) schemas, and points at the chart in this
// repository.
func TestFluxInstallMatchesTheSchemas(t *testing.T) {
	needsAPIServer(t)
	g := NewWithT(t)
	ctx := context.Background()
	installCRDs(t, "helm.toolkit.fluxcd.io_helmreleases.yaml")
	objs := readObjects(t, filepath.Join(repoRoot, "install", "rc.yaml"))
	g.Expect(kinds(objs)).To(ConsistOf("GitRepository", "HelmRelease"))
	g.Expect(dryRunApply(ctx, objs)).To(Succeed())

	repo, release := find(objs, "GitRepository", "flux-kcl-controller"), find(objs, "HelmRelease", "flux-kcl-controller")
	g.Expect(repo.GetNamespace()).To(Equal(releaseNamespace))
	g.Expect(nestedString(repo, "spec", "ref", "branch")).To(Equal("main"))
	g.Expect(nestedString(release, "spec", "chart", "spec", "chart")).To(Equal("./charts/flux-kcl-controller"))
	g.Expect(nestedString(release, "spec", "chart", "spec", "sourceRef", "kind")).To(Equal("GitRepository"))
	g.Expect(nestedString(release, "spec", "chart", "spec", "sourceRef", "name")).To(Equal(repo.GetName()))
	g.Expect(nestedString(release, "spec", "releaseName")).To(Equal(releaseName))

	// The pinning the README documents is valid too.
	for _, ref := range []map[string]any{{"tag": "v0.1.0"}, {"semver": ">=0.1.0 <0.2.0"}} {
		pinned := repo.DeepCopy()
		g.Expect(unstructured.SetNestedMap(pinned.Object, ref, "spec", "ref")).To(Succeed())
		g.Expect(dryRunApply(ctx, []*unstructured.Unstructured{pinned})).To(Succeed(), "%v", ref)
	}
}
