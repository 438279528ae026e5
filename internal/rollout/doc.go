// Package rollout is the ImageRollout state machine: from a rollout, its
// policy's election and the KCLRuns that follow the policy, Step computes the
// rollout's next status, the events to record and the stages whose KCLRuns
// must be reconciled. It reads no cluster and no clock of its own (the caller
// passes now), so every transition is a table test.
//
// A stage's image is status.stages[].image: the target once the stage is
// admitted, last good before that and after a rollback. Markers of a KCLRun
// resolve to its stage's image (ImageFor); a KCLRun no stage selects gets
// last good until the rollout completes.
//
// Transitions, one Step at a time:
//   - A new election (the policy's latestRef differs from status.target)
//     starts a rollout: every stage goes Pending. A rollout still running is
//     superseded: stages already admitted keep the image they hold (the
//     superseded target, which they ran Ready) until the new target reaches
//     them, so nothing moves backwards; stages not admitted keep last good.
//   - The first stage not Succeeded is admitted unless the rollout is
//     suspended (Pending), a freeze window is open (Frozen, until it ends) or
//     the stage wants an approval for the target (AwaitingApproval).
//   - An admitted stage is Progressing until every KCLRun in it is Ready at
//     the target, then Baking for spec.stages[].bake, then Succeeded; a
//     KCLRun that leaves Ready restarts the bake. The next stage is admitted
//     in the same Step.
//   - A KCLRun of the admitted stage Ready=False at the target fails the
//     stage: Halt keeps the stage at the target, Rollback returns it to last
//     good; either way the rollout halts until a new election, a new
//     generation or a reconcile request (reconcile.fluxcd.io/requestedAt)
//     retries the stage.
//   - When every stage Succeeded the target becomes last good.
package rollout
