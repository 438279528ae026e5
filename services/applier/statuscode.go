package applier

import (
	"context"
	"net/http"
)

// The HTTP status of a server-side apply tells whether it created the object
// (201) or changed one that existed (200); controller-runtime's client does
// not return it, so a transport wrapper hands it back through the context.
// That saves the GET that would otherwise precede every new object.

type statusCodeKey struct{}

// withStatusCode returns a context whose requests record their HTTP status in code.
func withStatusCode(ctx context.Context, code *int) context.Context {
	return context.WithValue(ctx, statusCodeKey{}, code)
}

type statusCodeRecorder struct {
	next http.RoundTripper
}

func recordStatusCodes(next http.RoundTripper) http.RoundTripper {
	return &statusCodeRecorder{next: next}
}

func (r *statusCodeRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err == nil {
		if code, ok := req.Context().Value(statusCodeKey{}).(*int); ok {
			*code = resp.StatusCode
		}
	}
	return resp, err
}
