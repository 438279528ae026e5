package watcher

import (
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
)

func TestJitteredStaysWithinPercentage(t *testing.T) {
	d := 10 * time.Minute
	for _, r := range []float64{0, 0.25, 0.5, 0.999} {
		got := jittered(d, 5, r)
		if got < 9*time.Minute+30*time.Second || got > 10*time.Minute+30*time.Second {
			t.Errorf("jittered(10m, 5%%, %v) = %v, outside ±5%%", r, got)
		}
	}
	if got := jittered(d, 0, 0.9); got != d {
		t.Errorf("jittered without percentage = %v, want %v", got, d)
	}
}

func TestPeriodForUsesRetryIntervalWhenNotReady(t *testing.T) {
	run := &kclv1.KCLRun{Spec: kclv1.KCLRunSpec{
		Interval:      metav1.Duration{Duration: time.Hour},
		RetryInterval: &metav1.Duration{Duration: time.Minute},
	}}
	if d, reason := periodFor(run, time.Second); d != time.Hour || reason != reconcilerequest.ReasonIntervalElapsed {
		t.Errorf("without Ready: %v %s", d, reason)
	}
	run.Status.Conditions = []metav1.Condition{{Type: meta.ReadyCondition, Status: metav1.ConditionFalse}}
	if d, reason := periodFor(run, time.Second); d != time.Minute || reason != reconcilerequest.ReasonRetryIntervalElapsed {
		t.Errorf("Ready=False: %v %s", d, reason)
	}
	run.Spec.RetryInterval = nil
	if d, _ := periodFor(run, time.Second); d != time.Hour {
		t.Errorf("Ready=False without retryInterval: %v, want the interval", d)
	}
	run.Spec.Interval.Duration = 0
	if d, _ := periodFor(run, time.Second); d != time.Second {
		t.Errorf("zero interval: %v, want the minimum", d)
	}
}

func TestArtifactChanged(t *testing.T) {
	a := &meta.Artifact{Revision: "main@sha1:1", Digest: "sha256:1"}
	cases := []struct {
		old, cur *meta.Artifact
		want     bool
	}{
		{nil, nil, false},
		{a, nil, false},
		{nil, a, true},
		{a, a, false},
		{a, &meta.Artifact{Revision: "main@sha1:2", Digest: "sha256:1"}, true},
		{a, &meta.Artifact{Revision: "main@sha1:1", Digest: "sha256:2"}, true},
	}
	for i, c := range cases {
		if got := artifactChanged(c.old, c.cur); got != c.want {
			t.Errorf("case %d: artifactChanged = %v, want %v", i, got, c.want)
		}
	}
}
