// Package tenant generates the load test's applications: one KCL program per tenant (a schema
// rendering a ConfigMap, a Deployment and a Service, with one $imagepolicy marker), and the
// plain YAML its kustomize-controller twin applies — rendered by the project's own KCL engine
// from the twin's program, so both sides apply the same objects.
//
// Every tenant's program differs (names, labels, settings), so no compile is ever answered
// from another tenant's cache.
package tenant

import (
	"context"
	"fmt"
	"os"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// Side tells which controller a tenant's namespace belongs to.
type Side string

const (
	// KCL tenants are KCLRuns reconciled by flux-kcl-controller.
	KCL Side = "kcl"
	// Kustomize tenants are Kustomizations reconciled by Flux's kustomize-controller.
	Kustomize Side = "kust"
)

// Tenant is one application of the load test.
type Tenant struct {
	Index int
	Side  Side
	// Stage, when set, adds a second container to the Deployment whose image
	// follows the ImagePolicy every such tenant shares (AgentPolicy in
	// RolloutNamespace), which one ImageRollout stages; the KCLRun carries
	// Stage as its StageLabel. Empty: the program is the plain one.
	Stage string
	// NoService drops the Service from the program: a run without the
	// apiserver's ClusterIP allocator in its cost.
	NoService bool
}

// The shared policy of the rollout scenario: one ImagePolicy that every
// tenant with a Stage follows from its own namespace ("ns:name" marker).
const (
	RolloutNamespace = "lt-rollout"
	AgentPolicy      = "agent"
	AgentRepository  = "registry.example/rollout/agent"
	// StageLabel on a KCLRun names its stage; the ImageRollout selects by it.
	StageLabel = "loadtest.kcl.dev/stage"
)

// AgentImage is the shared agent image at tag.
func AgentImage(tag string) string { return AgentRepository + ":" + tag }

// Namespace holds the tenant's source, runner and objects.
func (t Tenant) Namespace() string { return fmt.Sprintf("lt-%s-%04d", t.Side, t.Index) }

// Name names the source, the KCLRun or Kustomization, and the ImagePolicy.
const Name = "web"

// ImageRepository is the image the tenant's Deployment runs; policies move only its tag.
func (t Tenant) ImageRepository() string {
	return fmt.Sprintf("registry.example/tenant-%04d/web", t.Index)
}

// Image is the image reference with tag.
func (t Tenant) Image(tag string) string { return t.ImageRepository() + ":" + tag }

// ProgramFile is the program's file name inside the artifact.
const ProgramFile = "main.k"

// Program is the tenant's KCL source at a revision (a word such as "r1" that ends up in the
// ConfigMap, so a new artifact revision changes an object) with the image pinned to tag.
func (t Tenant) Program(revision, tag string) string {
	var field, agent, container string
	if t.Stage != "" {
		// The agent is pinned at the first tag in every revision: only the
		// shared policy moves it.
		field = "    agent: str = \"\"\n"
		agent = fmt.Sprintf("    agent = %q  # {\"$imagepolicy\": \"%s:%s\"}\n", AgentImage(AgentFirstTag), RolloutNamespace, AgentPolicy)
		container = ` + [{name = "agent", image = app.agent}]`
	}
	service := serviceEntry
	if t.NoService {
		service = ""
	}
	return fmt.Sprintf(program, t.Namespace(), t.Image(tag), t.Namespace(), t.Index, revision, t.Index, field, agent, container, service)
}

// AgentFirstTag is the agent's tag in the program, the shared policy's first election.
const AgentFirstTag = "1.0.0"

// The marker follows the image literal; the check block keeps the schema honest.
const program = `import manifests

schema App:
    """One tenant's web application: a Deployment, its Service and its settings."""
    name: str
    namespace: str
    image: str
    replicas: int = 2
    port: int = 8080
    settings: {str:str} = {}
%[7]s
    check:
        replicas >= 1, "at least one replica"
        1 <= port <= 65535

app = App {
    name = "web"
    namespace = %[1]q
    image = %[2]q  # {"$imagepolicy": "%[3]s:web"}
%[8]s    settings = {
        TENANT = "%04[4]d"
        REVISION = %[5]q
    }
}

_labels = {"app.kubernetes.io/name" = app.name, "app.kubernetes.io/instance" = "tenant-%04[6]d"}

manifests.yaml_stream([
    {
        apiVersion = "v1"
        kind = "ConfigMap"
        metadata = {name = app.name + "-settings", namespace = app.namespace, labels = _labels}
        data = app.settings
    }
    {
        apiVersion = "apps/v1"
        kind = "Deployment"
        metadata = {name = app.name, namespace = app.namespace, labels = _labels}
        spec = {
            replicas = app.replicas
            selector.matchLabels = _labels
            template = {
                metadata.labels = _labels
                spec.containers = [{
                    name = app.name
                    image = app.image
                    ports = [{containerPort = app.port, name = "http"}]
                    envFrom = [{configMapRef.name = app.name + "-settings"}]
                }]%[9]s
            }
        }
    }
%[10]s])
`

// serviceEntry is the program's Service, the last item of its stream.
const serviceEntry = `    {
        apiVersion = "v1"
        kind = "Service"
        metadata = {name = app.name, namespace = app.namespace, labels = _labels}
        spec = {
            selector = _labels
            ports = [{name = "http", port = 80, targetPort = "http"}]
        }
    }
`

// ConfigMapName is the name of the object that carries the revision.
const ConfigMapName = "web-settings"

// RevisionKey is the ConfigMap key holding the revision.
const RevisionKey = "REVISION"

// Files is the artifact content of a tenant at a revision: for a KCL tenant its program, for
// a kustomize twin the YAML that program renders (no kustomization.yaml: kustomize-controller
// generates one, as for any plain-YAML repository).
func (t Tenant) Files(ctx context.Context, revision, tag string) (map[string]string, error) {
	src := t.Program(revision, tag)
	if t.Side == KCL {
		return map[string]string{ProgramFile: src}, nil
	}
	yaml, err := Render(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("rendering the twin of tenant %d: %w", t.Index, err)
	}
	return map[string]string{"app.yaml": string(yaml)}, nil
}

// Render runs a program with the project's KCL engine and returns its YAML.
func Render(ctx context.Context, src string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "loadtest-render-")
	if err != nil {
		return nil, fmt.Errorf("creating a work dir: %w", err)
	}
	defer os.RemoveAll(dir)
	res, err := kcl.Run(ctx, kcl.Options{
		WorkDir:       dir,
		Files:         []string{ProgramFile},
		FileOverrides: map[string][]byte{ProgramFile: []byte(src)},
	})
	if err != nil {
		return nil, fmt.Errorf("running the KCL engine: %w", err)
	}
	return res.YAML, nil
}
