package watcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
)

// One apiserver, one nats-server and one watcher for the package; each test
// works in its own namespace, so its KCLRuns have their own subjects.
var (
	testEnv    *kube.Env
	k8sClient  client.Client
	testStream jetstream.Stream
	testJS     jetstream.JetStream
)

// Generous: the machine running the tests may be busy; nothing here measures speed.
const eventually = 60 * time.Second

func TestMain(m *testing.M) {
	os.Exit(runSuite(m))
}

func runSuite(m *testing.M) int {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(false)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var err error
	if testEnv, err = kube.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "starting apiserver:", err)
		return 1
	}
	defer testEnv.Stop()
	k8sClient = testEnv.Client

	ns, err := natsserver.Start(natsserver.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting nats-server:", err)
		return 1
	}
	defer ns.Stop()
	nc, err := ns.Connect()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testJS = js

	cfg := DefaultConfig()
	// One publisher goroutine keeps the publish order FIFO, which the
	// "others got none" assertions rely on as a barrier.
	cfg.Concurrent = 1
	cfg.IntervalJitterPercentage = 0
	cfg.MetricsAddr, cfg.HealthAddr = "0", "0"
	cfg.MinInterval = 500 * time.Millisecond
	svc, err := New(cfg, Deps{RestConfig: testEnv.Config, JetStream: js, Logger: logr.Discard()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating watcher:", err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	if testStream, err = waitForStream(ctx, js, ""); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	code := m.Run()
	cancel()
	if err := <-done; err != nil {
		fmt.Fprintln(os.Stderr, "watcher:", err)
		return 1
	}
	return code
}

func waitForStream(ctx context.Context, js jetstream.JetStream, s shard.Name) (jetstream.Stream, error) {
	for {
		st, err := js.Stream(ctx, s.Stream())
		if err == nil {
			return st, nil
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, fmt.Errorf("waiting for stream: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func newNamespace(t testing.TB) string {
	t.Helper()
	ns, err := testEnv.CreateNamespace(context.Background(), "watcher")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// newKCLRun creates a KCLRun on a GitRepository source.
func newKCLRun(t testing.TB, namespace, name, source string, mutate ...func(*kclv1.KCLRun)) *kclv1.KCLRun {
	t.Helper()
	run := &kclv1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: kclv1.KCLRunSpec{
			SourceRef: kclv1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: source},
			Interval:  metav1.Duration{Duration: time.Hour},
		},
	}
	for _, m := range mutate {
		m(run)
	}
	if err := k8sClient.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

// pendingRequest returns the request waiting on the KCLRun's subject, or nil.
func pendingRequest(g Gomega, namespace, name string) *reconcilerequest.Request {
	msg, err := testStream.GetLastMsgForSubject(context.Background(), reconcilerequest.Subject("", namespace, name))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	g.Expect(err).NotTo(HaveOccurred())
	req, err := reconcilerequest.Decode(msg.Data)
	g.Expect(err).NotTo(HaveOccurred())
	return &req
}

// pendingCount is how many requests wait on the KCLRun's subject.
func pendingCount(g Gomega, namespace, name string) uint64 {
	subject := reconcilerequest.Subject("", namespace, name)
	info, err := testStream.Info(context.Background(), jetstream.WithSubjectFilter(subject))
	g.Expect(err).NotTo(HaveOccurred())
	return info.State.Subjects[subject]
}

// waitForReason waits until the KCLRun's pending request has reason, and
// returns it.
func waitForReason(t *testing.T, namespace, name string, reason reconcilerequest.Reason) *reconcilerequest.Request {
	t.Helper()
	var got *reconcilerequest.Request
	NewWithT(t).Eventually(func(g Gomega) {
		got = pendingRequest(g, namespace, name)
		g.Expect(got).NotTo(BeNil())
		g.Expect(got.Reason).To(Equal(reason))
	}, eventually, 20*time.Millisecond).Should(Succeed())
	return got
}

// consume removes the KCLRun's pending request, as the applier's ack would.
func consume(t *testing.T, namespace, name string) {
	t.Helper()
	err := testStream.Purge(context.Background(), jetstream.WithPurgeSubject(reconcilerequest.Subject("", namespace, name)))
	if err != nil {
		t.Fatal(err)
	}
}

// setReady writes the Ready condition as the applier would after an attempt.
func setReady(t *testing.T, run *kclv1.KCLRun, status metav1.ConditionStatus, reason, revision string) {
	t.Helper()
	ctx := context.Background()
	NewWithT(t).Eventually(func() error {
		var cur kclv1.KCLRun
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &cur); err != nil {
			return err
		}
		cur.Status.ObservedGeneration = cur.Generation
		cur.Status.LastAttemptedRevision = revision
		if status == metav1.ConditionTrue {
			cur.Status.LastAppliedRevision = revision
		}
		cur.Status.Conditions = []metav1.Condition{{
			Type: meta.ReadyCondition, Status: status, Reason: reason, Message: reason,
			ObservedGeneration: cur.Generation, LastTransitionTime: metav1.Now(),
		}}
		return k8sClient.Status().Update(ctx, &cur)
	}, eventually).Should(Succeed())
}
