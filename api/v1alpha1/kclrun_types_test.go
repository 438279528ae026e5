package v1alpha1_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

func TestTimeoutFollowsTheInterval(t *testing.T) {
	for _, tc := range []struct {
		interval, timeout time.Duration
		want              time.Duration
	}{
		{interval: 10 * time.Minute, want: 5 * time.Minute},            // capped at DefaultTimeout
		{interval: 2 * time.Minute, want: 90 * time.Second},            // interval less 30s
		{interval: 20 * time.Second, want: 30 * time.Second},           // at least 30s
		{interval: time.Hour, timeout: time.Second, want: time.Second}, // explicit wins
	} {
		run := &v1alpha1.KCLRun{Spec: v1alpha1.KCLRunSpec{Interval: metav1.Duration{Duration: tc.interval}}}
		if tc.timeout != 0 {
			run.Spec.Timeout = &metav1.Duration{Duration: tc.timeout}
		}
		if got := run.GetTimeout(); got != tc.want {
			t.Errorf("interval %s timeout %s: GetTimeout() = %s, want %s", tc.interval, tc.timeout, got, tc.want)
		}
	}
}

func TestRetryIntervalDefaultsToInterval(t *testing.T) {
	run := &v1alpha1.KCLRun{Spec: v1alpha1.KCLRunSpec{Interval: metav1.Duration{Duration: time.Minute}}}
	if got := run.GetRetryInterval(); got != time.Minute {
		t.Errorf("GetRetryInterval() = %s, want 1m", got)
	}
	run.Spec.RetryInterval = &metav1.Duration{Duration: 10 * time.Second}
	if got := run.GetRetryInterval(); got != 10*time.Second {
		t.Errorf("GetRetryInterval() = %s, want 10s", got)
	}
}

func TestNamespacesDefaultToTheKCLRuns(t *testing.T) {
	run := &v1alpha1.KCLRun{ObjectMeta: metav1.ObjectMeta{Namespace: "apps"}}
	if run.SourceNamespace() != "apps" || run.GetTargetNamespace() != "apps" {
		t.Errorf("got source %q target %q, want both apps", run.SourceNamespace(), run.GetTargetNamespace())
	}
	run.Spec.SourceRef.Namespace = "flux-system"
	run.Spec.TargetNamespace = "prod"
	if run.SourceNamespace() != "flux-system" || run.GetTargetNamespace() != "prod" {
		t.Errorf("got source %q target %q, want flux-system and prod", run.SourceNamespace(), run.GetTargetNamespace())
	}
}

func TestDeepCopyIsIndependent(t *testing.T) {
	orig := &v1alpha1.KCLRun{Spec: v1alpha1.KCLRunSpec{
		Config:       &v1alpha1.ConfigSpec{Arguments: []string{"env=prod"}},
		HealthChecks: nil,
	}}
	cp := orig.DeepCopy()
	cp.Spec.Config.Arguments[0] = "env=dev"
	if orig.Spec.Config.Arguments[0] != "env=prod" {
		t.Error("DeepCopy shares the arguments slice")
	}
}

func TestOutputDefaultsToApplyAndTheKCLRunsName(t *testing.T) {
	run := &v1alpha1.KCLRun{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web"}}
	if run.GetOutputMode() != v1alpha1.OutputApply || run.GetExternalArtifactName() != "web" {
		t.Errorf("got mode %q name %q, want Apply and web", run.GetOutputMode(), run.GetExternalArtifactName())
	}
	run.Spec.Output = &v1alpha1.Output{Mode: v1alpha1.OutputExternalArtifact, ExternalArtifact: &v1alpha1.ExternalArtifactOutput{Name: "web-rendered"}}
	if run.GetOutputMode() != v1alpha1.OutputExternalArtifact || run.GetExternalArtifactName() != "web-rendered" {
		t.Errorf("got mode %q name %q, want ExternalArtifact and web-rendered", run.GetOutputMode(), run.GetExternalArtifactName())
	}
}
