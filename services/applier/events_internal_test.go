package applier

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/kubescheme"
)

// Stopping does not wait for a post in flight to a receiver that does not
// answer: its retries (after a 5 s timeout each) used to hold every stop.
func TestStopDoesNotWaitForAHangingReceiver(t *testing.T) {
	arrived := make(chan struct{}, 8)
	release := make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
	}))
	defer receiver.Close()
	defer close(release)

	scheme, err := kubescheme.New()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := newEventRecorder(funcr.New(func(string, string) {}, funcr.Options{}), &rest.Config{Host: "http://127.0.0.1:1"}, scheme, receiver.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	rec.start(ctx, &wg)
	rec.record(&v1alpha1.KCLRun{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "app", UID: "1"}}, "main@sha1:1", true, "Test", "hello")
	select {
	case <-arrived:
	case <-time.After(time.Minute):
		t.Fatal("the post never reached the receiver")
	}

	cancel()
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the recorder is still waiting for the receiver")
	}
	// Waiting would have meant the post's retries (one per 5 s timeout).
	if retried := len(arrived); retried > 0 {
		t.Fatalf("the recorder waited for %d more attempts of the post before stopping", retried)
	}
}
