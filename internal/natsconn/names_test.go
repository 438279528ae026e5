package natsconn

import (
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

// The permissions name the stream, consumer and buckets; they must follow the code.
func TestNamesFollowTheServices(t *testing.T) {
	for got, want := range map[string]string{
		reconcileSubjects: reconcilerequest.SubjectFilter,
		reconcileStream:   reconcilerequest.StreamName,
		applierConsumer:   reconcilerequest.ConsumerName,
		leaseBucket:       applier.LeaseBucket,
		appliedBucket:     applier.FingerprintBucket,
	} {
		if got != want {
			t.Errorf("natsconn uses %q, the services %q", got, want)
		}
	}
}
