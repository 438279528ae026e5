package eval_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// semCase is a program and what `kcl run main.k` 0.12.1 prints for it: the
// YAML, or for an error "Kind main.k:line:col message" (":col" left out when
// the official engine reports only the line). Every want below was obtained by
// running the official engine on the program.
type semCase struct {
	name string
	src  string
	want string
}

func runSemCases(t *testing.T, cases []semCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := runProgram(t, map[string]string{"main.k": c.src}, kcl.Limits{})
			got := describeOutcome(res, err)
			if got != c.want {
				t.Fatalf("program:\n%s\n--- got\n%s\n--- want\n%s", c.src, got, c.want)
			}
		})
	}
}

// describeOutcome renders a run the way semCase.want spells it.
func describeOutcome(res *kcl.Result, err error) string {
	var kerr *kcl.Error
	if errors.As(err, &kerr) {
		loc := fmt.Sprintf("%s:%d", kerr.File, kerr.Line)
		if kerr.Col > 0 {
			loc += fmt.Sprintf(":%d", kerr.Col)
		}
		return kerr.Kind + " " + loc + " " + kerr.Message
	}
	if err != nil {
		return "host error: " + err.Error()
	}
	return strings.TrimSuffix(string(res.YAML), "\n")
}
