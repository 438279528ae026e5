package applier_test

import (
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Two watchers stepping the same rollout at once (two replicas without
// leader election, or two shards) never admit a stage twice: each decision
// is written with the status's resourceVersion first, the loser of a race
// gets a conflict, and only a written decision records its event.
func TestImageRolloutTwoWatchersAdmitOnce(t *testing.T) {
	g := NewWithT(t)
	w := newRolloutWorld(t, map[string]string{"canary-1": "canary", "early-1": "early", "rest-1": ""})
	second := w.runWatcher()
	defer second()
	w.createRollout(v1alpha1.ImageRolloutSpec{Stages: []v1alpha1.RolloutStage{
		{Name: "canary", Selector: stageSelector("canary"), Bake: &metav1.Duration{Duration: time.Minute}},
		{Name: "early", Selector: stageSelector("early")},
		{Name: "rest"},
	}})
	w.elect("2.0.0")
	w.waitImages("2.0.0", "canary-1")
	w.waitStates("canary=Baking early=Pending rest=Pending")
	w.clock.Step(time.Minute)
	w.waitImages("2.0.0", "early-1", "rest-1")
	w.waitStates("canary=Succeeded early=Succeeded rest=Succeeded")
	w.checkStageOrder("ghcr.io/org/web:2.0.0", []string{"canary", "early", "rest"})

	g.Eventually(func(g Gomega) map[string]int32 {
		var list corev1.EventList
		g.Expect(env.Client.List(context.Background(), &list, client.InNamespace(w.ns))).To(Succeed())
		admitted := map[string]int32{}
		for _, e := range list.Items {
			if e.Reason == v1alpha1.StageAdmittedReason {
				stage, _, _ := strings.Cut(strings.TrimPrefix(e.Message, "stage "), " ")
				admitted[stage] += max(e.Count, 1)
			}
		}
		return admitted
	}, "30s", "200ms").Should(Equal(map[string]int32{"canary": 1, "early": 1, "rest": 1}))
}
