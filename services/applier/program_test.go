package applier_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// manifest is one object of a test program, as nested maps.
type manifest map[string]any

// programOf renders the manifests as a KCL program whose output is them.
func programOf(objects ...manifest) string {
	var b strings.Builder
	b.WriteString("items = [\n")
	for _, o := range objects {
		b.WriteString("    ")
		writeKCL(&b, map[string]any(o))
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.String()
}

func writeKCL(b *strings.Builder, v any) {
	switch v := v.(type) {
	case manifest:
		writeKCL(b, map[string]any(v))
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%q = ", k)
			writeKCL(b, v[k])
		}
		b.WriteString("}")
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		writeKCL(b, m)
	case []any:
		b.WriteString("[")
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeKCL(b, e)
		}
		b.WriteString("]")
	case string:
		fmt.Fprintf(b, "%q", v)
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int:
		fmt.Fprintf(b, "%d", v)
	default:
		panic(fmt.Sprintf("writeKCL: unsupported %T", v))
	}
}

// configMapManifest is a ConfigMap carrying data and annotations (either may be nil).
func configMapManifest(name string, data, annotations map[string]string) manifest {
	meta := map[string]any{"name": name}
	if annotations != nil {
		meta["annotations"] = annotations
	}
	m := manifest{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
	if data != nil {
		m["data"] = data
	}
	return m
}

// createLiveConfigMap creates a ConfigMap as another tool would (kubectl's
// field manager), before or beside the KCLRun.
func createLiveConfigMap(t testing.TB, namespace, name string, data, annotations map[string]string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: annotations},
		Data:       data,
	}
	if err := env.Client.Create(context.Background(), cm, client.FieldOwner("kubectl")); err != nil {
		t.Fatal(err)
	}
	return cm
}

// liveConfigMap reads a ConfigMap; found is false when it does not exist.
func liveConfigMap(g Gomega, namespace, name string) (cm *corev1.ConfigMap, found bool) {
	cm = &corev1.ConfigMap{}
	err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: name}, cm)
	if client.IgnoreNotFound(err) != nil {
		g.Expect(err).NotTo(HaveOccurred())
	}
	return cm, err == nil
}

// editConfigMap changes a live ConfigMap as the field manager owner:
// "kubectl-edit" for an operator (the applier takes over what any kubectl*
// manager wrote, as kustomize-controller does), another name for a tool
// whose fields stay its own.
func editConfigMap(t testing.TB, namespace, name, owner string, edit func(*corev1.ConfigMap)) {
	t.Helper()
	g := NewWithT(t)
	g.Eventually(func() error {
		cm := &corev1.ConfigMap{}
		if err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: name}, cm); err != nil {
			return err
		}
		edit(cm)
		return env.Client.Update(context.Background(), cm, client.FieldOwner(owner))
	}, "30s", "100ms").Should(Succeed())
}
