package install_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// releaseName is the documented release name.
const releaseName = "flux-kcl-controller"

// chartDir is the chart in this repository.
func chartDir() string { return filepath.Join(repoRoot, "charts", "flux-kcl-controller") }

// renderChart renders the chart as `helm install --dry-run` would for the values files (paths
// relative to the chart) merged with overrides: CRDs, templates and hooks, in that order.
func renderChart(t testing.TB, valuesFiles []string, overrides map[string]any) []*unstructured.Unstructured {
	t.Helper()
	objs, err := renderChartObjects(valuesFiles, overrides)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func renderChartObjects(valuesFiles []string, overrides map[string]any) ([]*unstructured.Unstructured, error) {
	chrt, err := loader.Load(chartDir())
	if err != nil {
		return nil, fmt.Errorf("loading the chart: %w", err)
	}
	vals := map[string]any{}
	for _, f := range valuesFiles {
		v, err := chartutil.ReadValuesFile(filepath.Join(chartDir(), f))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		vals = chartutil.CoalesceTables(v.AsMap(), vals)
	}
	vals = chartutil.CoalesceTables(overrides, vals)

	cfg := &action.Configuration{
		Releases:     storage.Init(driver.NewMemory()),
		KubeClient:   &kubefake.PrintingKubeClient{Out: io.Discard},
		Capabilities: chartutil.DefaultCapabilities,
		Log:          func(string, ...any) {},
	}
	install := action.NewInstall(cfg)
	install.DryRun, install.ClientOnly, install.IncludeCRDs = true, true, true
	install.ReleaseName, install.Namespace = releaseName, releaseNamespace
	install.KubeVersion = &chartutil.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"}
	rel, err := install.Run(chrt, vals)
	if err != nil {
		return nil, fmt.Errorf("rendering the chart: %w", err)
	}
	manifests := []byte(rel.Manifest)
	for _, h := range rel.Hooks {
		manifests = append(manifests, []byte("\n---\n"+h.Manifest)...)
	}
	return decodeObjects(manifests)
}

// buildKustomization runs kustomize (krusty) on a folder of the repository.
func buildKustomization(t testing.TB, dir string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := kustomizeBuild(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func kustomizeBuild(fs filesys.FileSystem, dir string) ([]*unstructured.Unstructured, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(fs, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	out, err := resMap.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	return decodeObjects(out)
}

// readObjects decodes the YAML documents of a file.
func readObjects(t testing.TB, path string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeObjects(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return objs
}

// decodeObjects splits a YAML stream into objects, skipping empty documents.
func decodeObjects(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("decoding YAML: %w", err)
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
}

// find returns the object of kind and name, or nil.
func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}
