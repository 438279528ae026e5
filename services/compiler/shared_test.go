package compiler_test

import (
	"context"
	"sync"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// Identical requests in flight together all get the same, correct answer,
// whether they shared one compilation or not.
func TestConcurrentIdenticalCompilations(t *testing.T) {
	w := startWorker(t, nil)
	a := w.publish(t, "shared", map[string]string{"main.k": deploymentProgram})
	const callers = 16
	digests := make(chan string, callers)
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			got, err := w.client.Compile(context.Background(), workerclient.CompileInput{Artifact: ref(a)})
			if err != nil {
				t.Error(err)
				return
			}
			digests <- got.OutputDigest
		})
	}
	wg.Wait()
	close(digests)
	first := ""
	for d := range digests {
		if first == "" {
			first = d
		}
		if d != first || d == "" {
			t.Fatalf("digests differ: %s vs %s", d, first)
		}
	}
}
