package faults

import (
	"context"
	"testing"
	"time"

	"github.com/kcl-lang/flux-kcl-controller/loadtest/fault"
)

// A compiler replica is SIGKILLed with a compile call in flight: the applier's worker
// client retries the call on the other replica, nothing is lost, and the killed replica
// comes back.
//
// To catch the compiler mid-call deterministically, the target tenant's next artifact is
// held after its first download (the resolver's): the compile call then waits inside the
// only running compiler, compiler-0. compiler-1 is started, compiler-0 killed, the hold
// released; compiler-0 restarts after the outage.
func TestCompilerKilledMidCompile(t *testing.T) {
	f := startFleet(t, fleetOptions{compilers: 2, startCompilers: 1})
	f.addTenants(f.opts.tenants)
	t.Logf("initial convergence of %d KCLRuns: %s", len(f.tenants), f.waitConverged().Round(time.Millisecond))
	target := f.tenants[0]
	s := f.startStream(100*time.Millisecond, target)
	s.waitChanges(t, 4)

	ctx := context.Background()
	var path string
	var release func()
	if err := f.publish(ctx, target, func(p string) { path, release = p, f.artifacts.HoldAfter(p, 1) }); err != nil {
		t.Fatal(err)
	}
	defer release()
	waitFor(t, "compile call held in compiler-0's download", func() bool { return f.artifacts.Waiting(path) == 1 })
	f.start(ctx, f.compilers[1])
	victim := f.compilers[0]
	f.runFault(fault.Kill(victim, ""), s, 2*time.Second, func() {
		t.Logf("%s killed with the compile call of %s in flight", victim.Name, target.key())
		release()
	})
}
