package rollout

import (
	"fmt"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// BenchmarkStep1000 is one Step of a rollout of 1,000 KCLRuns in stages of
// 10/90/900 (canary Baking): what the watcher spends per event on top of
// listing the followers.
func BenchmarkStep1000(b *testing.B) {
	ro := &v1alpha1.ImageRollout{
		ObjectMeta: metav1.ObjectMeta{Namespace: "platform", Name: "web", Generation: 1},
		Spec: v1alpha1.ImageRolloutSpec{
			ImagePolicyRef: meta.LocalObjectReference{Name: "web"},
			Stages: []v1alpha1.RolloutStage{
				{Name: "canary", Selector: matchStage("canary"), Bake: &metav1.Duration{Duration: time.Hour}},
				{Name: "early", Selector: matchStage("early")},
				{Name: "rest"},
			},
		},
	}
	var members []Member
	for i := range 1000 {
		stage, img := "", v1.String()
		switch {
		case i < 10:
			stage, img = "canary", v2.String()
		case i < 100:
			stage = "early"
		}
		members = append(members, Member{Namespace: fmt.Sprintf("t-%04d", i), Name: "web",
			Labels: map[string]string{"rollout.example.com/stage": stage}, Image: img, Ready: metav1.ConditionTrue})
	}
	Step(ro, Observed{Election: v1, Members: members}, t0)
	Step(ro, Observed{Election: v2, Members: members}, t0)
	if s := ro.StageStatus("canary").State; s != v1alpha1.StageBaking {
		b.Fatalf("canary %s", s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		Step(ro.DeepCopy(), Observed{Election: v2, Members: members}, t0.Add(time.Minute))
	}
}
