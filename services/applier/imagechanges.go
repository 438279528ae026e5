package applier

import (
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// imageChanges describes the images an apply moves, as "from → to (policy ns/name)": the
// audit trail image automation by commit would leave in Git. An image is compared with
// what the last applied revision had at the same marker, or, the first time, with the
// literal the program pins.
func imageChanges(previous, current []v1alpha1.ResolvedImage) []string {
	applied := make(map[string]string, len(previous))
	for _, p := range previous {
		applied[p.Policy+"|"+p.Location] = p.To
	}
	var msgs []string
	for _, c := range current {
		from, ok := applied[c.Policy+"|"+c.Location]
		if !ok {
			from = c.From
		}
		if from != c.To {
			msgs = append(msgs, fmt.Sprintf("%s → %s (policy %s, %s)", from, c.To, c.Policy, c.Location))
		}
	}
	return msgs
}
