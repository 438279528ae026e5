package install_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func networkPolicy(t *testing.T, objs []*unstructured.Unstructured, name string) *networkingv1.NetworkPolicy {
	t.Helper()
	o := find(objs, "NetworkPolicy", name)
	if o == nil {
		t.Fatalf("no NetworkPolicy %s", name)
	}
	var np networkingv1.NetworkPolicy
	convert(t, o, &np)
	return &np
}

// ipBlocks are the CIDRs the policy's egress rules reach, with their exceptions.
func ipBlocks(np *networkingv1.NetworkPolicy) map[string][]string {
	out := map[string][]string{}
	for _, rule := range np.Spec.Egress {
		for _, peer := range rule.To {
			if peer.IPBlock != nil {
				out[peer.IPBlock.CIDR] = peer.IPBlock.Except
			}
		}
	}
	return out
}

// The compiler, which fetches for every tenant, may reach only what the package
// policy allows: DNS, the artifact servers, public package hosts on 443 (none
// with --no-remote-packages), and the allowed networks.
func TestChartCompilerEgressFollowsThePackagePolicy(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		g := NewWithT(t)
		objs := renderChart(t, []string{"ci/default-values.yaml"}, nil)
		np := networkPolicy(t, objs, "kcl-compiler")
		g.Expect(np.Spec.PolicyTypes).To(ContainElement(networkingv1.PolicyTypeEgress))
		blocks := ipBlocks(np)
		g.Expect(blocks).To(HaveKey("0.0.0.0/0"))
		g.Expect(blocks["0.0.0.0/0"]).To(ContainElements("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "127.0.0.0/8"))
		g.Expect(blocks["::/0"]).To(ContainElements("fc00::/7", "fe80::/10"))
		var dns, artifacts bool
		for _, rule := range np.Spec.Egress {
			for _, peer := range rule.To {
				if peer.PodSelector != nil && peer.PodSelector.MatchLabels["k8s-app"] == "kube-dns" {
					dns = true
				}
				if peer.PodSelector != nil && peer.PodSelector.MatchLabels["app"] == "source-controller" {
					artifacts = true
				}
			}
			if rule.To[0].IPBlock != nil {
				g.Expect(rule.Ports).To(HaveLen(1))
				g.Expect(rule.Ports[0].Port.IntValue()).To(Equal(443))
			}
		}
		g.Expect(dns).To(BeTrue(), "DNS")
		g.Expect(artifacts).To(BeTrue(), "source-controller")
		for _, name := range []string{"kcl-applier", "kcl-resolver", "kcl-watcher"} {
			g.Expect(networkPolicy(t, objs, name).Spec.Egress).To(BeEmpty(), name)
		}
	})
	t.Run("no remote packages", func(t *testing.T) {
		needsAPIServer(t)
		g := NewWithT(t)
		objs := renderChart(t, []string{"ci/default-values.yaml"}, map[string]any{"kclPackages": map[string]any{"noRemotePackages": true}})
		g.Expect(ipBlocks(networkPolicy(t, objs, "kcl-compiler"))).To(BeEmpty())
		compiler := deployment(t, find(objs, "Deployment", "kcl-compiler"))
		g.Expect(compiler.Spec.Template.Spec.Containers[0].Args).To(ContainElement("--no-remote-packages"))
		g.Expect(dryRunApply(context.Background(), objs)).To(Succeed())
		checkWorkloads(t, objs)
	})
	t.Run("large-cluster", func(t *testing.T) {
		g := NewWithT(t)
		objs := renderChart(t, []string{"ci/large-cluster-values.yaml"}, nil)
		g.Expect(ipBlocks(networkPolicy(t, objs, "kcl-compiler"))).To(HaveKey("10.20.0.0/16"))
		compiler := deployment(t, find(objs, "Deployment", "kcl-compiler"))
		g.Expect(compiler.Spec.Template.Spec.Containers[0].Args).To(ContainElements(
			"--allowed-package-hosts=registry.internal", "--allowed-package-networks=10.20.0.0/16"))
	})
}
