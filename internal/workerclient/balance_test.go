package workerclient_test

import (
	"context"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

func TestCallsAreSpreadOverReplicas(t *testing.T) {
	a, b := startReplica(t), startReplica(t)
	client := dialReplicas(t, a, b)
	artifact := publish(t, map[string]string{"main.k": program})

	for range 10 {
		if _, err := client.Compile(context.Background(), workerclient.CompileInput{Artifact: artifact}); err != nil {
			t.Fatal(err)
		}
	}
	// Round-robin over two ready replicas alternates; the first calls may all
	// land on the replica that connected first, so only ask for both to serve.
	if a.calls.Load() == 0 || b.calls.Load() == 0 {
		t.Fatalf("calls per replica: %d and %d, want both to serve", a.calls.Load(), b.calls.Load())
	}
}
