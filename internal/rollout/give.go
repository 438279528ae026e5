package rollout

import (
	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Give is the image the rollout ro gives run's markers of policy
// ("namespace/name"), and what the KCLRun's status shows of it. The applier
// and `build --kclrun` both call it, so the CLI renders what the cluster
// applies. namespaceLabels is asked only when a stage selects by namespace.
// Before the watcher initialised the rollout (no last good) it gives
// nothing: the policy's election stands.
func Give(ro *v1alpha1.ImageRollout, run *v1alpha1.KCLRun, policy string, namespaceLabels func() (map[string]string, error)) (*v1alpha1.RolloutImage, *v1alpha1.KCLRunRollout, error) {
	if ro == nil || ro.Status.LastGood == nil {
		return nil, nil, nil
	}
	stage, err := stageOf(ro, run, policy, namespaceLabels)
	if err != nil {
		return nil, nil, err
	}
	img := ImageFor(ro, stage)
	given := &v1alpha1.KCLRunRollout{Rollout: ro.Namespace + "/" + ro.Name, Policy: policy, Stage: stage, Image: img.String()}
	if !img.Equal(ro.Status.Target) {
		given.HeldBack = ro.Status.Target.String()
	}
	return img, given, nil
}

// stageOf is run's stage; with stages that do not parse (the rollout is
// Ready=False) the one it had, so a bad edit moves nobody.
func stageOf(ro *v1alpha1.ImageRollout, run *v1alpha1.KCLRun, policy string, namespaceLabels func() (map[string]string, error)) (string, error) {
	stages, err := ParseStages(ro.Spec.Stages)
	if err != nil {
		for _, given := range run.Status.ImageRollouts {
			if given.Policy == policy {
				return given.Stage, nil
			}
		}
		return "", nil
	}
	var nsLabels map[string]string
	if stages.NeedsNamespaceLabels() {
		if nsLabels, err = namespaceLabels(); err != nil {
			return "", err
		}
	}
	return stages.StageOf(run.Labels, nsLabels), nil
}
