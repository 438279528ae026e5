package cli_test

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// tree prints the inventory and follows a KCLRun the program applies into its own objects.
func TestTreeKCLRun(t *testing.T) {
	g, _ := setup(t)
	ns := namespace(t, "tree")
	childRev := publish(t, ns, "child", 1, program(configMap("b", `{x = "1"}`), deployment("c", "nginx:1.7.7", "")))
	child := fmt.Sprintf(`{
    apiVersion = "krm.kcl.dev.fluxcd/v1alpha1"
    kind = "KCLRun"
    metadata.name = "child"
    spec = {sourceRef = {kind = "GitRepository", name = "child"}, interval = "1h", targetNamespace = "%s"}
}`, ns)
	rev := publish(t, ns, "parent", 1, program(configMap("a", `{x = "1"}`), child))
	parent := newRun(t, ns, "parent", "parent", nil)
	readyAt(t, g, parent, rev)
	childRun := &v1alpha1.KCLRun{}
	childRun.Namespace, childRun.Name = ns, "child"
	readyAt(t, g, childRun, childRev)

	r := run(t, "tree", "kclrun", "parent", "-n", ns)
	g.Expect(r.code).To(Equal(0), r.err)
	golden(t, "tree-kclrun", r.out, ns)
}
