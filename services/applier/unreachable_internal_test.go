package applier

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// refusedConnection is what a client returns while the apiserver is down.
var refusedConnection = &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/apis", Err: &net.OpError{
	Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}

// After an outage the KCLRuns follow within seconds: the retries of a reconcile
// that could not reach the apiserver or a worker stay short, while other
// failures back off up to MaxBackoff.
func TestUnreachableRetriesStayShort(t *testing.T) {
	s := &Service{cfg: Config{MaxBackoff: 5 * time.Minute}}
	for name, err := range map[string]error{
		"connection refused":  fmt.Errorf("reading KCLRun a/b: %w", refusedConnection),
		"apiserver shutdown":  apierrors.NewTooManyRequests("the apiserver is shutting down", 1),
		"service unavailable": apierrors.NewServiceUnavailable("etcd leader changed"),
		"worker unavailable":  fmt.Errorf("compiler call failed: %w", status.Error(codes.Unavailable, "connection refused")),
	} {
		if got := s.transient(err, 10).RetryAfter; got != unreachableBackoff {
			t.Errorf("%s: retry after %s, want %s", name, got, unreachableBackoff)
		}
	}
	other := apierrors.NewConflict(schema.GroupResource{Resource: "kclruns"}, "b", errors.New("changed"))
	if got := s.transient(other, 10).RetryAfter; got != 5*time.Minute {
		t.Errorf("conflict: retry after %s, want the 5m cap", got)
	}
}
