package compiler_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
)

// optionProgram prints option("token") into a ConfigMap: whatever settings file
// is read ends in the tenant's own manifests.
const optionProgram = `[{apiVersion = "v1", kind = "ConfigMap", metadata.name = "leak", data.token = option("token") or "unset"}]
`

// The settings of one tenant cannot name another tenant's artifact unpacked in
// the compiler's cache, by absolute path or by climbing out with "..".
func TestSettingsCannotLeaveTheArtifact(t *testing.T) {
	cacheDir := t.TempDir()
	w := startWorker(t, func(c *compiler.Config) { c.ArtifactCacheDir = cacheDir })
	ctx := context.Background()

	other := w.publish(t, "other-tenant", map[string]string{
		"main.k":   optionProgram,
		"kcl.yaml": "kcl_options:\n  - key: token\n    value: other-tenant-token\n",
	})
	if _, err := w.client.Compile(ctx, workerclient.CompileInput{Artifact: ref(other), Config: workerclient.CompileConfig{Settings: []string{"kcl.yaml"}}, KCLRun: "other/app"}); err != nil {
		t.Fatal(err)
	}
	foreign := findFile(t, cacheDir, "kcl.yaml")

	own := w.publish(t, "tenant", map[string]string{
		"app/main.k":        optionProgram,
		"common/kcl.yaml":   "kcl_options:\n  - key: token\n    value: own-token\n",
		"app/settings.yaml": "kcl_cli_configs:\n  files:\n    - " + filepath.Join(filepath.Dir(foreign), "main.k") + "\n",
	})
	// Inside its own artifact, a settings file may sit beside the program.
	got, err := w.client.Compile(ctx, workerclient.CompileInput{Artifact: ref(own), Path: "app", Config: workerclient.CompileConfig{Settings: []string{"../common/kcl.yaml"}}, KCLRun: "tenant/app"})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructuredString(got.Objects[0].Object, "data", "token"); v != "own-token" {
		t.Errorf("token = %q, want own-token", v)
	}
	// The same file by a relative path from the tenant's unpacked program.
	rel, err := filepath.Rel(filepath.Join(findDir(t, cacheDir, "common"), "..", "app"), foreign)
	if err != nil {
		t.Fatal(err)
	}
	for _, settings := range [][]string{{foreign}, {rel}, {"settings.yaml"}} {
		_, err := w.client.Compile(ctx, workerclient.CompileInput{Artifact: ref(own), Path: "app", Config: workerclient.CompileConfig{Settings: settings}, KCLRun: "tenant/app"})
		if err == nil {
			t.Fatalf("settings %q: compiled, want a refusal", settings)
		}
		ce := compileError(t, err)
		if ce.Kind != compiler.KindPathRefused || !strings.Contains(ce.Message, "spec.config.settings") {
			t.Errorf("settings %q: got %s: %s, want %s naming spec.config.settings", settings, ce.Kind, ce.Message, compiler.KindPathRefused)
		}
		if strings.Contains(ce.Message, "other-tenant-token") {
			t.Errorf("settings %q: the refusal shows the other tenant's file: %s", settings, ce.Message)
		}
	}
}

func unstructuredString(obj map[string]any, fields ...string) (string, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, _ := cur.(map[string]any)
		cur = m[f]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// findFile finds the unpacked file name under dir (the cache's layout is the fetcher's).
func findFile(t *testing.T, dir, name string) string {
	t.Helper()
	var found string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name && found == "" {
			found = p
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no %s under %s", name, dir)
	}
	return found
}

func findDir(t *testing.T, dir, name string) string {
	t.Helper()
	var found string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == name && found == "" {
			found = p
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no directory %s under %s", name, dir)
	}
	return found
}

// A settings file the artifact does not hold is reported as a missing spec.path
// is, naming spec.config.settings, not as the engine's "invalid setting file format".
func TestSettingsFileMissingFromTheArtifact(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "nosettings", map[string]string{"app/main.k": optionProgram})
	for _, settings := range [][]string{{"kcl.yaml"}, {"../kcl.yaml"}} {
		_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Path: "app", Config: workerclient.CompileConfig{Settings: settings}})
		ce := compileError(t, err)
		if ce.Stage != workerclient.StageArtifact || ce.Kind != compiler.KindPathNotFound ||
			!strings.Contains(ce.Message, "spec.config.settings") || !strings.Contains(ce.Message, settings[0]) {
			t.Errorf("settings %q: got %+v, want an Artifact/%s error naming spec.config.settings and the file", settings, ce, compiler.KindPathNotFound)
		}
	}
}
