package applier_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

// A first sync whose program holds an object the apiserver rejects is not
// Ready with the apiserver's verdict; what it did create is in the
// inventory, so fixing or dropping it later leaves nothing unowned.
func TestFirstSyncRejectedObjectKeepsCreatedInInventory(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	// "z_bad" is not a valid ConfigMap name; "a-good" sorts first.
	publishProgram(t, ns, "app", `items = [
    {apiVersion = "v1", kind = "ConfigMap", metadata = {name = "a-good"}, data = {value = "1"}}
    {apiVersion = "v1", kind = "ConfigMap", metadata = {name = "z_bad"}, data = {value = "2"}}
]
`)
	createKCLRun(t, ns, "mixed", "app") // prunes
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "mixed")
		ready := readyCondition(obj)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Message).To(ContainSubstring("z_bad"))
		g.Expect(obj.Status.Inventory).NotTo(BeNil())
		g.Expect(obj.Status.Inventory.Entries).To(ConsistOf(HaveField("ID", ns+"_a-good__ConfigMap")))
	}, "2m", "200ms").Should(Succeed())

	// Dropping both objects prunes the one that was created.
	fixed := publishProgram(t, ns, "app", configMap("other", "v"))
	request(t, ns, "mixed", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "mixed", fixed.Revision)
	g.Eventually(func() bool {
		err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "a-good"}, &corev1.ConfigMap{})
		return err != nil
	}, "1m", "200ms").Should(BeTrue())
}
