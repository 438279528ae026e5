package runstatus

import (
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// stageMarks are the states as get imagerollouts prints them, after the stage's name.
var stageMarks = map[string]string{
	v1alpha1.StageSucceeded:        "✔",
	v1alpha1.StageBaking:           "◎ baking",
	v1alpha1.StageAwaitingApproval: "⏸ approval",
	v1alpha1.StageFrozen:           "❄ frozen",
	v1alpha1.StageFailed:           "✗",
	v1alpha1.StagePending:          "·",
}

// StageSummary is "canary ✔ early ⏸ approval rest ·": the stages in order, a Progressing
// stage with its KCLRuns ready/total (canary ► 1/3); spec order before the first status.
func StageSummary(ro *v1alpha1.ImageRollout) string {
	var parts []string
	for _, spec := range ro.Spec.Stages {
		s := ro.StageStatus(spec.Name)
		switch {
		case s == nil:
			parts = append(parts, spec.Name+" ·")
		case s.State == v1alpha1.StageProgressing:
			parts = append(parts, fmt.Sprintf("%s ► %d/%d", s.Name, s.Ready, s.Total))
		case stageMarks[s.State] != "":
			parts = append(parts, s.Name+" "+stageMarks[s.State])
		default:
			parts = append(parts, s.Name+" "+s.State)
		}
	}
	return strings.Join(parts, " ")
}
