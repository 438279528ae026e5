package apiserveroutage

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

var refused = &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/apis", Err: &net.OpError{
	Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}

func TestUnavailable(t *testing.T) {
	for name, c := range map[string]struct {
		err  error
		want bool
	}{
		"refused":     {fmt.Errorf("watching: %w", refused), true},
		"unavailable": {apierrors.NewServiceUnavailable("starting"), true},
		"not found":   {apierrors.NewNotFound(schema.GroupResource{Resource: "kclruns"}, "x"), false},
		"forbidden":   {apierrors.NewForbidden(schema.GroupResource{Resource: "kclruns"}, "x", errors.New("no")), false},
		"nil":         {nil, false},
	} {
		if got := Unavailable(c.err); got != c.want {
			t.Errorf("%s: Unavailable = %v, want %v", name, got, c.want)
		}
	}
}

// apiserver is a fake whose readiness a test switches.
type apiserver struct {
	up     atomic.Bool
	probes atomic.Int64
}

func (a *apiserver) probe(context.Context) error {
	a.probes.Add(1)
	if a.up.Load() {
		return nil
	}
	return refused
}

func TestWaitBackReturnsAtOnceWhenReady(t *testing.T) {
	a := &apiserver{}
	a.up.Store(true)
	wasDown, err := NewWithProbe(a.probe).WaitBack(context.Background())
	if err != nil || wasDown {
		t.Fatalf("WaitBack = %v, %v; want false, nil", wasDown, err)
	}
}

// Many waiters share one probe loop, all released when the apiserver is back.
func TestWaitBackSharesProbes(t *testing.T) {
	a := &apiserver{}
	g := NewWithProbe(a.probe)
	done := make(chan bool, 20)
	for range 20 {
		go func() {
			wasDown, err := g.WaitBack(context.Background())
			done <- wasDown && err == nil
		}()
	}
	time.Sleep(500 * time.Millisecond)
	a.up.Store(true)
	for range 20 {
		select {
		case ok := <-done:
			if !ok {
				t.Fatal("a waiter returned without seeing the outage end")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("waiters not released after the apiserver came back")
		}
	}
	// 100, 200, 400 ms… apart: a handful, not one per waiter.
	if n := a.probes.Load(); n > 8 {
		t.Errorf("%d probes for 20 waiters over half a second", n)
	}
}

func TestWaitBackStopsWithItsContext(t *testing.T) {
	a := &apiserver{}
	g := NewWithProbe(a.probe)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := g.WaitBack(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitBack = %v, want the deadline", err)
	}
	time.Sleep(1500 * time.Millisecond) // past one probe interval
	n := a.probes.Load()
	time.Sleep(1500 * time.Millisecond)
	if a.probes.Load() != n {
		t.Error("probes went on after the last waiter left")
	}
}

// fakeLW fails with a refused connection while the apiserver is down.
type fakeLW struct {
	a              *apiserver
	lists, watches atomic.Int64
}

func (f *fakeLW) List(metav1.ListOptions) (runtime.Object, error) {
	f.lists.Add(1)
	if !f.a.up.Load() {
		return nil, refused
	}
	return &metav1.List{}, nil
}

func (f *fakeLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	f.watches.Add(1)
	if !f.a.up.Load() {
		return nil, refused
	}
	return watch.NewFake(), nil
}

var _ toolscache.ListerWatcher = (*fakeLW)(nil)

// A watch refused during the outage returns once the apiserver is back,
// without the error; a list likewise.
func TestListerWatcherWaitsOutTheOutage(t *testing.T) {
	a := &apiserver{}
	inner := &fakeLW{a: a}
	lw := NewWithProbe(a.probe).ListerWatcher(inner).(toolscache.ListerWatcherWithContext)
	go func() {
		time.Sleep(300 * time.Millisecond)
		a.up.Store(true)
	}()
	w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch through the outage: %v", err)
	}
	w.Stop()
	if _, err := lw.ListWithContext(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("list after the outage: %v", err)
	}
	if inner.watches.Load() != 2 {
		t.Errorf("%d watch calls, want 2 (refused, then after the outage)", inner.watches.Load())
	}
}

// A refusal that is not an outage (the apiserver is ready when probed) is
// the reflector's, so that it backs off as usual.
func TestListerWatcherPassesOnOtherFailures(t *testing.T) {
	a := &apiserver{}
	a.up.Store(true)
	gone := apierrors.NewNotFound(schema.GroupResource{Resource: "kclruns"}, "")
	lw := NewWithProbe(a.probe).ListerWatcher(&toolscache.ListWatch{
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return nil, refused },
		ListFunc:  func(metav1.ListOptions) (runtime.Object, error) { return nil, gone },
	}).(toolscache.ListerWatcherWithContext)
	if _, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{}); !errors.Is(err, refused) {
		t.Errorf("watch = %v, want the refusal", err)
	}
	if _, err := lw.ListWithContext(context.Background(), metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("list = %v, want not found", err)
	}
}
