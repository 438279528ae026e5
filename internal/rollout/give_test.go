package rollout

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Give hands a KCLRun its stage's image: the target once the stage is
// admitted, last good before; heldBack names the target it does not get yet.
func TestGive(t *testing.T) {
	f := newFleet(t, nil)
	f.election = v2
	f.step()
	run := func(stage string) *v1alpha1.KCLRun {
		return &v1alpha1.KCLRun{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app",
			Labels: map[string]string{"rollout.example.com/stage": stage}}}
	}
	noNamespace := func() (map[string]string, error) { return nil, errors.New("no stage selects by namespace") }
	for _, tc := range []struct {
		stage, image, heldBack string
	}{
		{"canary", v2.String(), ""},
		{"early", v1.String(), v2.String()},
		{"", v1.String(), v2.String()},
	} {
		img, given, err := Give(f.ro, run(tc.stage), "platform/web", noNamespace)
		if err != nil {
			t.Fatal(err)
		}
		want := tc.stage
		if want == "" {
			want = "rest"
		}
		if img.String() != tc.image || given.Image != tc.image || given.HeldBack != tc.heldBack || given.Stage != want ||
			given.Rollout != "platform/web" || given.Policy != "platform/web" {
			t.Errorf("stage %q: got %s, %+v; want image %s held back %q", tc.stage, img, given, tc.image, tc.heldBack)
		}
	}
}

// Before the watcher initialised the rollout, the policy's election stands.
func TestGiveBeforeTheRolloutStarted(t *testing.T) {
	img, given, err := Give(&v1alpha1.ImageRollout{}, &v1alpha1.KCLRun{}, "platform/web", nil)
	if img != nil || given != nil || err != nil {
		t.Fatalf("got %v, %v, %v", img, given, err)
	}
}

// A namespace selector reads the KCLRun's namespace labels; an error reading
// them is the reconcile's error, not a stage.
func TestGiveReadsNamespaceLabels(t *testing.T) {
	f := newFleet(t, nil)
	f.election = v2
	f.step()
	f.ro.Spec.Stages[0].Selector = nil
	f.ro.Spec.Stages[0].NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "canary"}}
	run := &v1alpha1.KCLRun{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app"}}
	_, given, err := Give(f.ro, run, "platform/web", func() (map[string]string, error) {
		return map[string]string{"tier": "canary"}, nil
	})
	if err != nil || given.Stage != "canary" || given.HeldBack != "" {
		t.Fatalf("got %+v, %v; want stage canary at the target", given, err)
	}
	if _, _, err := Give(f.ro, run, "platform/web", func() (map[string]string, error) { return nil, errors.New("down") }); err == nil {
		t.Fatal("the namespace's read error was lost")
	}
}
