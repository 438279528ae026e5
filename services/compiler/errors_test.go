package compiler_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

func TestCompileErrorIsLocated(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "invalid", map[string]string{"main.k": "a = 1\nb = a +\n"})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	ce := compileError(t, err)
	if ce.Stage != workerclient.StageCompile || ce.Kind == "" || ce.Message == "" {
		t.Fatalf("got %+v, want a located compile error", ce)
	}
	if ce.File != "main.k" || ce.Line != 2 {
		t.Errorf("located at %s:%d:%d, want main.k:2", ce.File, ce.Line, ce.Col)
	}
	if n := w.counter(t, "flux_kcl_compile_errors_total", "kind", ce.Kind); n != 1 {
		t.Errorf("flux_kcl_compile_errors_total{kind=%q} = %v, want 1", ce.Kind, n)
	}
}

func TestCompileErrorHidesSecretArguments(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "secret", map[string]string{"main.k": `
password = option("password")
assert password == "expected", "wrong password: " + password
`})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{
		Artifact:  ref(a),
		Arguments: []workerclient.Argument{{Name: "password", Value: "s3cr3t-value", Sensitive: true}},
	})
	ce := compileError(t, err)
	if strings.Contains(ce.Error(), "s3cr3t-value") {
		t.Fatalf("the error shows the secret: %v", ce)
	}
	if !strings.Contains(ce.Message, "wrong password: [redacted]") {
		t.Errorf("message %q, want the secret redacted", ce.Message)
	}
}

func TestCompileDigestMismatch(t *testing.T) {
	w := startWorker(t, nil)
	path := artifactserver.ArtifactPath("GitRepository", "default", "tampered", "")
	a := w.publish(t, "tampered", map[string]string{"main.k": deploymentProgram})
	other, err := artifactserver.TarGz(map[string]string{"main.k": "a = 2\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.artifacts.Replace(path, other); err != nil {
		t.Fatal(err)
	}
	_, err = w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	ce := compileError(t, err)
	if ce.Stage != workerclient.StageArtifact || ce.Kind != "ArtifactDigestMismatch" || !workerclient.IsArtifactError(err) {
		t.Fatalf("got %+v, want an Artifact/ArtifactDigestMismatch error", ce)
	}
}

func TestCompileArtifactNotFound(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "gone", map[string]string{"main.k": deploymentProgram})
	if err := w.artifacts.Remove(artifactserver.ArtifactPath("GitRepository", "default", "gone", "")); err != nil {
		t.Fatal(err)
	}
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	if ce := compileError(t, err); ce.Stage != workerclient.StageArtifact {
		t.Fatalf("got %+v, want an Artifact error", ce)
	}
}

func TestCompileLimits(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "big", map[string]string{"main.k": `[{apiVersion = "v1", kind = "ConfigMap", metadata.name = "c${i}", data.v = "x" * 100} for i in range(1000)]
`})
	_, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), MaxOutputBytes: 4096})
	if ce := compileError(t, err); ce.Kind != "LimitError" && ce.Kind != "OutputTooLarge" {
		t.Fatalf("got %+v, want an output limit error", ce)
	}
	// An expired deadline, whatever the machine's speed.
	_, err = w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a), Timeout: time.Nanosecond})
	if ce := compileError(t, err); ce.Stage != workerclient.StageTimeout {
		t.Fatalf("got %+v, want a Timeout error", ce)
	}
	// Neither failure was cached: with the default limits the program compiles.
	got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Objects) != 1000 || got.CacheHit {
		t.Fatalf("got %d objects (cache hit %v), want 1000 compiled afresh", len(got.Objects), got.CacheHit)
	}
}
