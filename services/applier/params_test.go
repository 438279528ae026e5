package applier_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

const paramsProgram = `_p = option("params")
items = [{
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = _p.name}
    data = {
        replicas = str(_p.replicas + 1)
        zone = _p.placement.zones[1]
    }
}]
`

// spec.params reaches the program as option("params"), a dict with the values' own
// types, as the original controller passed it.
func TestParamsAreOptionParams(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	artifact := publishProgram(t, ns, "app", paramsProgram)
	createKCLRun(t, ns, "params", "app", func(k *v1alpha1.KCLRun) {
		k.Spec.Params = map[string]runtime.RawExtension{
			"name":      {Raw: []byte(`"from-params"`)},
			"replicas":  {Raw: []byte(`2`)},
			"placement": {Raw: []byte(`{"zones": ["a", "b"]}`)},
		}
	})
	readyAt(t, ns, "params", artifact.Revision)
	cm := &corev1.ConfigMap{}
	g.Expect(env.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "from-params"}, cm)).To(Succeed())
	g.Expect(cm.Data).To(Equal(map[string]string{"replicas": "3", "zone": "b"}))
}
