package applier_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/lease"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// lostFingerprints fails the fingerprint bucket writes of the KCLRuns a test names, as a
// bucket without a leader or quorum does.
var lostFingerprints faultyFingerprints

type faultyFingerprints struct{ keys sync.Map }

var errFingerprintLost = errors.New("fingerprint write lost by the test")

func (f *faultyFingerprints) write(key string) error {
	if _, ok := f.keys.Load(key); ok {
		return errFingerprintLost
	}
	return nil
}

// lose fails the writes for namespace/name until the returned func is called.
func (f *faultyFingerprints) lose(namespace, name string) (restore func()) {
	key := lease.Key(namespace, name)
	f.keys.Store(key, struct{}{})
	return func() { f.keys.Delete(key) }
}

// An image rollback on one revision (the ImagePolicy moves to a new tag and back) whose
// middle apply could not store its fingerprint: the bucket still holds the first apply's,
// which equals the inputs of the rollback, yet the rollback is applied, as status.history
// records that other objects were applied since.
func TestRollbackAfterALostFingerprintIsApplied(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	policy, err := imagepolicy.Create(ctx, env.Client, ns, "web", imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "2.0.0"})
	g.Expect(err).NotTo(HaveOccurred())
	setLatest := func(tag string) {
		policy.Status.LatestRef = &imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: tag}
		g.Expect(env.Client.Status().Update(ctx, policy)).To(Succeed())
	}
	image := func() string {
		deploy := &appsv1.Deployment{}
		g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, deploy)).To(Succeed())
		return deploy.Spec.Template.Spec.Containers[0].Image
	}

	artifact := publishProgram(t, ns, "app", markedWebApp(ns))
	createKCLRun(t, ns, "web", "app")
	readyAt(t, ns, "web", artifact.Revision)
	key := ns + "/web"
	waitQuiet(t, key)
	g.Expect(image()).To(Equal("ghcr.io/org/web:2.0.0"))

	restore := lostFingerprints.lose(ns, "web")
	setLatest("2.1.0")
	g.Expect(requestAndWait(t, ns, "web", reconcilerequest.ReasonImagePolicyChanged).Result).To(Equal(applier.ResultApplied))
	g.Expect(image()).To(Equal("ghcr.io/org/web:2.1.0"))
	waitQuiet(t, key)
	restore()

	setLatest("2.0.0")
	g.Expect(requestAndWait(t, ns, "web", reconcilerequest.ReasonImagePolicyChanged).Result).To(Equal(applier.ResultApplied))
	g.Expect(image()).To(Equal("ghcr.io/org/web:2.0.0"))

	// The rollback's fingerprint is stored: what follows is a no-op again.
	waitQuiet(t, key)
	g.Expect(requestAndWait(t, ns, "web", reconcilerequest.ReasonImagePolicyChanged).Result).To(Equal(applier.ResultNoOp))
	assertNoOverlap(t)
}

// refusedStatus fails the appliers' status writes of the KCLRuns a test names.
var refusedStatus statusRefusal

type statusRefusal struct{ paths sync.Map }

var errStatusRefused = errors.New("status write refused by the test")

func (f *statusRefusal) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if _, ok := f.paths.Load(r.URL.Path); ok && r.Method != http.MethodGet {
			return nil, errStatusRefused
		}
		return rt.RoundTrip(r)
	})
}

// refuse fails the status writes of namespace/name until the returned func is called.
func (f *statusRefusal) refuse(namespace, name string) (restore func()) {
	path := "/apis/" + v1alpha1.GroupVersion.String() + "/namespaces/" + namespace + "/kclruns/" + name + "/status"
	f.paths.Store(path, struct{}{})
	return func() { f.paths.Delete(path) }
}

// The same rollback whose middle apply could not write its status: the status (and the
// bucket) still show the first apply, whose inputs equal the rollback's, while the cluster
// holds the middle apply's objects; the rollback is applied all the same, as the record was
// dropped before the middle apply.
func TestRollbackAfterALostStatusWriteIsApplied(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	policy, err := imagepolicy.Create(ctx, env.Client, ns, "web", imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: "2.0.0"})
	g.Expect(err).NotTo(HaveOccurred())
	setLatest := func(tag string) {
		policy.Status.LatestRef = &imagev1.ImageRef{Name: "ghcr.io/org/web", Tag: tag}
		g.Expect(env.Client.Status().Update(ctx, policy)).To(Succeed())
	}
	image := func(g Gomega) string {
		deploy := &appsv1.Deployment{}
		g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, deploy)).To(Succeed())
		return deploy.Spec.Template.Spec.Containers[0].Image
	}

	artifact := publishProgram(t, ns, "app", markedWebApp(ns))
	createKCLRun(t, ns, "web", "app")
	readyAt(t, ns, "web", artifact.Revision)
	waitQuiet(t, ns+"/web")

	restore := refusedStatus.refuse(ns, "web")
	setLatest("2.1.0")
	request(t, ns, "web", reconcilerequest.ReasonImagePolicyChanged)
	g.Eventually(image, "1m", "50ms").Should(Equal("ghcr.io/org/web:2.1.0"))
	g.Expect(getKCLRun(g, ns, "web").Status.Images).To(ConsistOf(HaveField("To", "ghcr.io/org/web:2.0.0")))

	// The failed reconcile is retried with the rolled-back inputs.
	setLatest("2.0.0")
	restore()
	g.Eventually(func(g Gomega) {
		g.Expect(image(g)).To(Equal("ghcr.io/org/web:2.0.0"))
		obj := getKCLRun(g, ns, "web")
		g.Expect(obj.Status.Images).To(ConsistOf(HaveField("To", "ghcr.io/org/web:2.0.0")))
	}, "1m", "100ms").Should(Succeed())
	assertNoOverlap(t)
}
