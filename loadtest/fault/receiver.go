package fault

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
)

// EventReceiver plays notification-controller's event receiver (the applier's
// --events-addr): it accepts Flux event JSON, keeps the events, and can go down (refusing
// connections) and come back on the same address.
type EventReceiver struct {
	addr string

	mu     sync.Mutex
	srv    *http.Server
	events []eventv1.Event
}

// StartEventReceiver listens on a free loopback port.
func StartEventReceiver() (*EventReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for events: %w", err)
	}
	r := &EventReceiver{addr: ln.Addr().String()}
	r.serve(ln)
	return r, nil
}

// URL to pass as --events-addr.
func (r *EventReceiver) URL() string { return "http://" + r.addr }

// Events returns the events received so far.
func (r *EventReceiver) Events() []eventv1.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]eventv1.Event(nil), r.events...)
}

func (r *EventReceiver) serve(ln net.Listener) {
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var ev eventv1.Event
		if err := json.NewDecoder(req.Body).Decode(&ev); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})}
	r.srv = srv
	go func() { _ = srv.Serve(ln) }()
}

// Down closes the listener and every connection: senders get connection refused.
func (r *EventReceiver) Down() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Up listens again on the same address; a no-op while up.
func (r *EventReceiver) Up() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.srv != nil {
		return nil
	}
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		return fmt.Errorf("listening again on %s: %w", r.addr, err)
	}
	r.serve(ln)
	return nil
}

// Close stops the receiver for good.
func (r *EventReceiver) Close() { r.Down() }
