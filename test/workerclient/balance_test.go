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

	untilAllServe(t, client, artifact, a, b)
	beforeA, beforeB := a.calls.Load(), b.calls.Load()
	for range 10 {
		if _, err := client.Compile(context.Background(), workerclient.CompileInput{Artifact: artifact}); err != nil {
			t.Fatal(err)
		}
	}
	// Round-robin over two ready replicas alternates.
	if da, db := a.calls.Load()-beforeA, b.calls.Load()-beforeB; da < 4 || db < 4 {
		t.Fatalf("10 calls split %d / %d, want about even", da, db)
	}
}
