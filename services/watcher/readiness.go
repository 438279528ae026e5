package watcher

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
)

// readiness is what /readyz reports, as the applier's does: the watcher is
// ready when its NATS connection is up and its caches have listed; on the
// elected replica, also when its event handlers have seen every listed
// object (before that, a request could be missing). A standby replica is
// ready with its caches, so a rolling update can replace the leader.
type readiness struct {
	cachesSynced   atomic.Bool
	handlersSynced atomic.Bool
}

// ready is the /readyz check.
func (s *Service) ready(*http.Request) error {
	if !s.js.Conn().IsConnected() {
		return errors.New("not connected to NATS")
	}
	if !s.readiness.cachesSynced.Load() {
		return errors.New("informer caches not synced yet")
	}
	select {
	case <-s.mgr.Elected():
		if !s.readiness.handlersSynced.Load() {
			return errors.New("elected, event handlers not synced yet")
		}
	default:
	}
	return nil
}

// cacheSync marks the caches synced once every informer started so far has
// listed; it runs on every replica.
type cacheSync struct{ s *Service }

func (c *cacheSync) NeedLeaderElection() bool { return false }

func (c *cacheSync) Start(ctx context.Context) error {
	if c.s.mgr.GetCache().WaitForCacheSync(ctx) {
		c.s.readiness.cachesSynced.Store(true)
	}
	<-ctx.Done()
	return nil
}
