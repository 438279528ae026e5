// Package apirequests records the requests a client sends an apiserver, for
// tests that pin what a reconcile costs it.
package apirequests

import (
	"net/http"
	"strings"
	"sync"
)

// Log keeps "METHOD path" of every request sent through Wrap.
type Log struct {
	mu  sync.Mutex
	all []string
}

// Wrap is a rest.Config WrapTransport: it logs each request, then sends it.
func (l *Log) Wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.all = append(l.all, r.Method+" "+r.URL.Path)
		l.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

// In counts the logged requests into one namespace by
// "METHOD resource[/subresource]", as "PATCH kclruns/status".
func (l *Log) In(namespace string) map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	counts := map[string]int{}
	marker := "/namespaces/" + namespace + "/"
	for _, r := range l.all {
		method, path, _ := strings.Cut(r, " ")
		_, rest, ok := strings.Cut(path, marker)
		if !ok {
			continue
		}
		parts := strings.Split(rest, "/") // resource, name, subresource
		key := method + " " + parts[0]
		if len(parts) > 2 {
			key += "/" + parts[2]
		}
		counts[key]++
	}
	return counts
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
