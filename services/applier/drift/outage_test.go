package drift

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/internal/apiserveroutage"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/kube"
)

// The drift informers' lists and watches wait out a kube-apiserver restart (SIGTERM, the
// same etcd) in the Gate and go on once it is ready: the reflector never sees the refused
// connections, so it does not back off (0.8 s doubling, up to 30 s, before it watched
// again), and an edit made right after the restart is reported as drift.
func TestDriftWatchesWaitOutAnAPIServerRestart(t *testing.T) {
	g := NewWithT(t)
	env := kube.StartT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns, err := env.CreateNamespace(ctx, "drift-outage")
	g.Expect(err).NotTo(HaveOccurred())
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "applied", Labels: map[string]string{
		"owner.test/name": "app", "owner.test/namespace": ns,
	}}}
	g.Expect(env.Client.Create(ctx, cm, client.FieldOwner("applier"))).To(Succeed())

	// The Gate probes /readyz as apiserveroutage.New does, counting the probes.
	readiness, err := kubernetes.NewForConfig(env.Config)
	g.Expect(err).NotTo(HaveOccurred())
	var probes atomic.Int64
	gate := apiserveroutage.NewWithProbe(func(ctx context.Context) error {
		probes.Add(1)
		return readiness.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	})
	drifted := make(chan types.NamespacedName, 10)
	w, err := New(env.Config, Options{
		OwnerGroup: "owner.test", FieldManager: "applier", Outage: gate,
		OnDrift: func(owner types.NamespacedName, _ schema.GroupVersionResource, _ *metav1.PartialObjectMetadata, _ bool) {
			drifted <- owner
		},
	})
	g.Expect(err).NotTo(HaveOccurred())
	configMaps := corev1.SchemeGroupVersion.WithResource("configmaps")
	w.Watch(configMaps)
	var refused atomic.Int64
	g.Expect(w.watched[configMaps].SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		if apiserveroutage.Unavailable(err) {
			refused.Add(1)
		}
	})).To(Succeed())
	go w.Run(ctx)
	g.Eventually(w.HasSynced, time.Minute, 50*time.Millisecond).Should(BeTrue())

	g.Expect(env.StopAPIServer()).To(Succeed())
	// The broken watch is tried again, refused, and waits in the Gate, which probes.
	g.Eventually(probes.Load, time.Minute, 50*time.Millisecond).Should(BeNumerically(">=", 2))
	g.Expect(env.StartAPIServer(ctx)).To(Succeed())

	// Someone else's edit after the restart: drift.
	g.Eventually(func() error {
		got := &corev1.ConfigMap{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
			return err
		}
		got.Labels["edited"] = "by-hand"
		return env.Client.Update(ctx, got, client.FieldOwner("kubectl"))
	}, time.Minute, 100*time.Millisecond).Should(Succeed())
	g.Eventually(drifted, time.Minute).Should(Receive(Equal(types.NamespacedName{Namespace: ns, Name: "app"})))
	g.Expect(refused.Load()).To(BeZero(), "refused lists or watches reached the reflector (and its backoff)")
}
