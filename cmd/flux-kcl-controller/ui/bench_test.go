package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// benchRuns is the size the issue asks the view to be usable at.
const benchRuns = 10_000

// syntheticRun is a KCLRun as the controller leaves it: conditions, an inventory of five
// objects, an image a policy moved and one history entry. One in 20 fails, one in 33 is
// suspended, one in 50 is progressing.
func syntheticRun(i int) *v1alpha1.KCLRun {
	ns := fmt.Sprintf("tenant-%03d", i%100)
	name := fmt.Sprintf("app-%05d", i)
	rev := fmt.Sprintf("main@sha1:%040x", i)
	run := &v1alpha1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1, UID: "00000000-0000-0000-0000-000000000000",
			ResourceVersion: "12345", CreationTimestamp: metav1.Now(), Labels: map[string]string{"team": ns}},
		Spec: v1alpha1.KCLRunSpec{
			SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: name},
			Interval:  metav1.Duration{Duration: 10 * time.Minute}, Prune: true, Path: "./deploy",
		},
	}
	st := &run.Status
	st.ObservedGeneration = 1
	st.LastAppliedRevision, st.LastAttemptedRevision = rev, rev
	ready := metav1.Condition{Type: meta.ReadyCondition, Status: metav1.ConditionTrue, Reason: meta.ReconciliationSucceededReason, Message: "Applied revision: " + rev, LastTransitionTime: metav1.Now()}
	switch {
	case i%20 == 7:
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, "BuildFailed", "main.k:12:5: EvaluationError: attribute 'replicas' of Deployment is required"
	case i%33 == 5:
		run.Spec.Suspend = true
	case i%50 == 3:
		ready.Status, ready.Reason = metav1.ConditionUnknown, meta.ProgressingReason
	}
	st.Conditions = []metav1.Condition{ready, {Type: meta.HealthyCondition, Status: metav1.ConditionTrue, Reason: "Succeeded", Message: "all objects are healthy", LastTransitionTime: metav1.Now()}}
	st.Inventory = &v1alpha1.ResourceInventory{}
	for _, kind := range []string{"_ConfigMap", "_Service", "apps_Deployment", "networking.k8s.io_Ingress", "policy_PodDisruptionBudget"} {
		st.Inventory.Entries = append(st.Inventory.Entries, v1alpha1.ResourceRef{ID: ns + "_" + name + "_" + kind, Version: "v1"})
	}
	st.Images = []v1alpha1.ResolvedImage{{Policy: ns + "/web", Location: "main.k:24", From: "nginx:1.7.8", To: "nginx:1.7.9"}}
	st.History = meta.History{{Digest: "sha256:" + fmt.Sprintf("%064x", i), FirstReconciled: metav1.Now(), LastReconciled: metav1.Now(),
		LastReconciledDuration: metav1.Duration{Duration: time.Second}, LastReconciledStatus: "ReconciliationSucceeded", TotalReconciliations: 4,
		Metadata: map[string]string{"revision": rev}}}
	return run
}

// benchServer is a local-mode Server whose user's store holds n runs, as its watch fills
// it; no apiserver is involved, so the numbers are the view's own.
func benchServer(b *testing.B, n int) *Server {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	s := &Server{opts: Options{Auth: AuthKubeconfig, PageSize: 100, Now: time.Now, Cluster: "bench"}, ctx: ctx, sessions: map[string]*session{}}
	var err error
	if s.pages, err = parsePages(time.Now); err != nil {
		b.Fatal(err)
	}
	s.handler = s.routes()
	st := newStore()
	for i := range n {
		st.upsert(syntheticRun(i))
	}
	close(st.ready)
	st.stop, st.lastUsed = cancel, time.Now()
	s.sessions["kubeconfig"] = &session{user: "bench", store: st}
	return s
}

func benchPage(b *testing.B, path string) {
	s := benchServer(b, benchRuns)
	h := s.Handler()
	var bytes int
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil)
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		bytes = rec.Body.Len()
	}
	b.ReportMetric(float64(bytes), "bytes/page")
}

// The overview of 10,000 KCLRuns in 100 namespaces.
func BenchmarkOverview10k(b *testing.B) { benchPage(b, "/") }

// The list's first page (100 rows) of 10,000, and a text search over all of them.
func BenchmarkList10k(b *testing.B)       { benchPage(b, "/kclruns") }
func BenchmarkListSearch10k(b *testing.B) { benchPage(b, "/kclruns?q=tenant-042&state=Failing") }

// The heap of the view holding 10,000 KCLRuns: the live heap after a collection, and the
// part of it the store takes (the objects as the watch keeps them, and the rows).
func BenchmarkMemory10k(b *testing.B) {
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := benchServer(b, benchRuns)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "store-MiB")
		b.ReportMetric(float64(after.HeapInuse)/(1<<20), "heap-inuse-MiB")
		runtime.KeepAlive(s)
	}
}
