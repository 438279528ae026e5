package rollout

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Stages are a rollout's parsed stage selectors.
type Stages struct {
	names     []string
	selectors []stageSelector
}

type stageSelector struct {
	labels, namespaces labels.Selector // nil: not given
}

// ParseStages parses the stage selectors and checks the stage list: names
// unique, and a stage without selectors (the rest) only last.
func ParseStages(stages []v1alpha1.RolloutStage) (*Stages, error) {
	out := &Stages{}
	seen := map[string]bool{}
	for i := range stages {
		st := &stages[i]
		if seen[st.Name] {
			return nil, fmt.Errorf("stage %q appears twice", st.Name)
		}
		seen[st.Name] = true
		if !st.HasSelector() && i != len(stages)-1 {
			return nil, fmt.Errorf("stage %q has no selector but is not the last stage: only the last may take every other KCLRun", st.Name)
		}
		var sel stageSelector
		var err error
		if sel.labels, err = parseSelector(st.Selector); err != nil {
			return nil, fmt.Errorf("stage %q: selector: %w", st.Name, err)
		}
		if sel.namespaces, err = parseSelector(st.NamespaceSelector); err != nil {
			return nil, fmt.Errorf("stage %q: namespaceSelector: %w", st.Name, err)
		}
		out.names = append(out.names, st.Name)
		out.selectors = append(out.selectors, sel)
	}
	return out, nil
}

func parseSelector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return nil, nil
	}
	return metav1.LabelSelectorAsSelector(s)
}

// NeedsNamespaceLabels reports whether a stage selects by namespace labels.
func (s *Stages) NeedsNamespaceLabels() bool {
	for _, sel := range s.selectors {
		if sel.namespaces != nil {
			return true
		}
	}
	return false
}

// matches reports whether stage i's selectors match; a stage without any matches all.
func (s *Stages) matches(i int, kclRunLabels, namespaceLabels map[string]string) bool {
	sel := s.selectors[i]
	if sel.labels != nil && !sel.labels.Matches(labels.Set(kclRunLabels)) {
		return false
	}
	if sel.namespaces != nil && !sel.namespaces.Matches(labels.Set(namespaceLabels)) {
		return false
	}
	return true
}

// StageOf is the name of the first stage that selects a KCLRun, "" when none does.
func (s *Stages) StageOf(kclRunLabels, namespaceLabels map[string]string) string {
	for i := range s.names {
		if s.matches(i, kclRunLabels, namespaceLabels) {
			return s.names[i]
		}
	}
	return ""
}

// overlaps names the KCLRuns that two stages with selectors both select.
func (s *Stages) overlaps(members []Member) error {
	var clashes []string
	for _, m := range members {
		var in []string
		for i, sel := range s.selectors {
			if (sel.labels != nil || sel.namespaces != nil) && s.matches(i, m.Labels, m.NamespaceLabels) {
				in = append(in, s.names[i])
			}
		}
		if len(in) > 1 {
			clashes = append(clashes, fmt.Sprintf("%s/%s (%s)", m.Namespace, m.Name, strings.Join(in, ", ")))
		}
	}
	if len(clashes) == 0 {
		return nil
	}
	sort.Strings(clashes)
	msg := "KCLRuns selected by more than one stage: " + strings.Join(clashes[:min(len(clashes), 5)], "; ")
	if len(clashes) > 5 {
		msg += fmt.Sprintf(" and %d more", len(clashes)-5)
	}
	return fmt.Errorf("%s", msg)
}

// Governing is the rollout of a policy ("namespace/name") among rollouts:
// the oldest, then the first by name, when several name it; nil when none
// does. The watcher steps the others as ConflictingRollout, the applier
// follows this one.
func Governing(rollouts []v1alpha1.ImageRollout, policy string) *v1alpha1.ImageRollout {
	var best *v1alpha1.ImageRollout
	for i := range rollouts {
		ro := &rollouts[i]
		if ro.PolicyKey() != policy || !ro.DeletionTimestamp.IsZero() {
			continue
		}
		if best == nil || ro.CreationTimestamp.Before(&best.CreationTimestamp) ||
			ro.CreationTimestamp.Equal(&best.CreationTimestamp) && ro.Name < best.Name {
			best = ro
		}
	}
	return best
}
