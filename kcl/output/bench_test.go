package output

import (
	"strconv"
	"testing"

	v "github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// deployment builds a typical Deployment as a program would produce it.
func deployment(i int) *v.Dict {
	name := "app-" + strconv.Itoa(i)
	labels := v.DictOf("app", v.Str(name), "tier", v.Str("backend"))
	container := v.DictOf(
		"name", v.Str(name),
		"image", v.Str("ghcr.io/example/"+name+":1.2.3"),
		"ports", v.NewList([]v.Value{v.DictOf("containerPort", v.Int(8080), "protocol", v.Str("TCP"))}),
		"env", v.NewList([]v.Value{
			v.DictOf("name", v.Str("LOG_LEVEL"), "value", v.Str("info")),
			v.DictOf("name", v.Str("ENABLED"), "value", v.Str("true")),
		}),
		"resources", v.DictOf("limits", v.DictOf("cpu", v.Str("500m"), "memory", v.Str("512Mi"))),
		"args", v.NewList([]v.Value{v.Str("--config=/etc/app/config.yaml"), v.Str("--verbose")}),
	)
	return v.DictOf(
		"apiVersion", v.Str("apps/v1"),
		"kind", v.Str("Deployment"),
		"metadata", v.DictOf("name", v.Str(name), "namespace", v.Str("default"), "labels", labels),
		"spec", v.DictOf(
			"replicas", v.Int(3),
			"selector", v.DictOf("matchLabels", labels),
			"template", v.DictOf(
				"metadata", v.DictOf("labels", labels),
				"spec", v.DictOf("containers", v.NewList([]v.Value{container})),
			),
		),
	)
}

func BenchmarkYAML1000Deployments(b *testing.B) {
	items := make([]v.Value, 1000)
	for i := range items {
		items[i] = deployment(i)
	}
	top := v.DictOf("items", v.NewList(items))
	out, _ := YAML(top, Options{})
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := YAML(top, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkYAMLStream1000Deployments(b *testing.B) {
	items := make([]v.Value, 1000)
	for i := range items {
		items[i] = deployment(i)
	}
	stream := v.NewList(items)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := YAML(stream, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
