package workerclient_test

import (
	"context"
	"sync"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// A replica that dies while it holds calls costs those calls a retry on the
// other replica, not a failure.
func TestReplicaDyingMidCall(t *testing.T) {
	doomed, survivor := startReplica(t), startReplica(t)
	entered := make(chan struct{}, 100)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	client := dialReplicas(t, doomed, survivor)
	artifact := publish(t, map[string]string{"main.k": program})
	untilAllServe(t, client, artifact, doomed, survivor)
	served := survivor.calls.Load()
	hold := func(context.Context) {
		entered <- struct{}{}
		<-release // never answers: it dies first
	}
	doomed.hold.Store(&hold)

	const calls = 8
	errs := make(chan error, calls)
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			got, err := client.Compile(context.Background(), workerclient.CompileInput{Artifact: artifact})
			if err == nil && len(got.Objects) != 1 {
				t.Errorf("got %d objects, want 1", len(got.Objects))
			}
			errs <- err
		})
	}
	<-entered // the doomed replica is in the middle of a call
	doomed.server.Stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a call failed although a replica was left: %v", err)
		}
	}
	if n := survivor.calls.Load() - served; n < calls {
		t.Errorf("the survivor served %d calls, want all %d", n, calls)
	}
}
