package syntax

import "testing"

// smallProgram is a typical small configuration: a schema with a check block,
// a config instance, Kubernetes-like dicts with interpolation, a lambda and a
// comprehension. Most programs the compiler service sees are of this size.
const smallProgram = `import regex

schema Container:
    """A container of a workload."""
    name: str
    image: str
    port?: int = 8080
    env?: {str:str} = {}
    pullPolicy?: "Always" | "Never" | "IfNotPresent" = "IfNotPresent"

    check:
        port > 0 and port < 65536, "port out of range"
        regex.match(name, r"^[a-z][a-z0-9-]*$"), "bad name ${name}"

app = "shop"
replicas = 3
labels = {"app.kubernetes.io/name": app, "tier": "web"}

web = Container {
    name = "web"
    image = "registry.example.com/${app}/web:1.4.2"
    env = {"LOG_LEVEL": "info", "REPLICAS": "${replicas}"}
}

resources = [
    {
        apiVersion = "apps/v1"
        kind = "Deployment"
        metadata = {name = "${app}-web", labels = labels}
        spec = {replicas = replicas, template.spec.containers = [web]}
    }
    {
        apiVersion = "v1"
        kind = "Service"
        metadata = {name = "${app}-web", labels = labels}
        spec = {ports = [{port = 80, targetPort = web.port}], selector = labels}
    }
    {
        apiVersion = "v1"
        kind = "ConfigMap"
        metadata.name = "${app}-config"
        data = {k = "${v}" for k, v in web.env}
    }
]

withNamespace = lambda r: {str:}, ns: str -> {str:} {
    r | {metadata.namespace = ns}
}

# Every resource lands in the app's namespace.
manifests = [withNamespace(r, "${app}-prod") for r in resources if r.kind != "ConfigMap"]
ports = [c.port * 2 for c in [web] if c.port]
`

func BenchmarkParseSmall(b *testing.B) {
	src := []byte(smallProgram)
	if _, err := ParseFile("small.k", src); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFile("small.k", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScanSmall(b *testing.B) {
	src := []byte(smallProgram)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Scan("small.k", src); err != nil {
			b.Fatal(err)
		}
	}
}
