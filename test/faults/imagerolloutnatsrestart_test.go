package faults

import (
	"fmt"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
)

// NATS goes down while the canary stage bakes, and stays down while the bake ends and the
// watcher admits the rest stage (a status write to the apiserver, which is up): the rest's
// reconcile requests can only be published after the restart. Meanwhile new revisions of
// the rest tenants keep coming and must be applied at last good. Then the rollout
// completes, in order, with nothing lost and its status never reset (the canary's bake
// keeps its start: no KCLRun of the canary was touched).
func TestImageRolloutNATSRestart(t *testing.T) {
	// Long enough for NATS to go down before it ends, whatever the load.
	const bake = 3 * time.Second
	rf := startRolloutFleet(t, fleetOptions{}, bake)
	s := rf.startStream(200*time.Millisecond, rf.canary)
	s.waitChanges(t, 3)
	target := rf.elect("2.0.0")
	before := rf.waitStage(target, canaryStage, v1alpha1.StageBaking).StageStatus(canaryStage)
	nats := faultLogged{Fault: fault.NATSRestart(rf.nats), rf: rf, atInject: func(ro *v1alpha1.ImageRollout) error {
		if st := ro.StageStatus(restStage); st.State != v1alpha1.StagePending {
			return fmt.Errorf("the canary's bake ended before NATS went down (rest %s): the admission with NATS down is not tested", st.State)
		}
		return nil
	}}
	rf.runFault(nats, s, *outage, func() {
		// The outage starts once the rest stage is admitted with NATS down.
		rf.waitStage(target, restStage, v1alpha1.StageProgressing, v1alpha1.StageBaking, v1alpha1.StageSucceeded)
		rf.logStates("rest admitted with NATS down")
	})
	after := rf.waitCompleted(target).StageStatus(canaryStage)
	if !after.ReadyAt.Equal(before.ReadyAt) || !after.AdmittedAt.Equal(before.AdmittedAt) {
		t.Errorf("stage canary was reset: admitted %s, Ready %s; before the fault admitted %s, Ready %s", after.AdmittedAt, after.ReadyAt, before.AdmittedAt, before.ReadyAt)
	}
	rf.checkRollout(target)
}
