package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

const deploymentsProgram = `
schema Container:
    name: str
    image: str
    ports: [int] = [8080]
    env: {str:str} = {}

schema Deployment:
    apiVersion: str = "apps/v1"
    kind: str = "Deployment"
    metadata: {str:str}
    spec: {str:}
    _replicas: int = 2

    check:
        _replicas > 0

_n = option("n", type="int", default=10)
deployments = [Deployment {
    metadata = {name = "app-${i}", namespace = "default"}
    spec = {
        replicas = i % 5 + 1
        selector.matchLabels.app = "app-${i}"
        template.spec.containers = [Container {
            name = "main"
            image = "registry.example/app:${i}"
            env.INDEX = str(i)
        }]
    }
} for i in range(_n)]
`

// BenchmarkDeployments measures a whole run (parse from cache, evaluate,
// print YAML) producing N Deployments from a schema.
func BenchmarkDeployments(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.k"), []byte(deploymentsProgram), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			opts := kcl.Options{WorkDir: dir, Files: []string{"main.k"}, Arguments: []string{"n=" + strconv.Itoa(n)}}
			b.ReportAllocs()
			var size int
			for b.Loop() {
				res, err := kcl.Run(context.Background(), opts)
				if err != nil {
					b.Fatal(err)
				}
				size = len(res.YAML)
			}
			b.ReportMetric(float64(size), "yaml-bytes")
		})
	}
}
