package allinone

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// markedProgram follows the policy for the web container and pins the sidecar on purpose.
const markedProgram = `
_web_image = "nginx:1.7.7"  # {"$imagepolicy": "NS:nginx"}

apiVersion = "apps/v1"
kind = "Deployment"
metadata = {name = "web"}
spec = {
    selector.matchLabels = {app = "web"}
    template = {
        metadata.labels = {app = "web"}
        spec.containers = [
            {name = "web", image = _web_image}
            {name = "pinned", image = "nginx:1.7.7"}
        ]
    }
}
`

// markedRun is a KCLRun "web" of markedProgram, applied by a whole process, whose marker
// follows the ImagePolicy ns/nginx (latestRef nginx:1.7.8) and whose interval is an hour away.
type markedRun struct {
	c      client.Client
	ns     string
	run    *kclv1.KCLRun
	policy *imagev1.ImagePolicy
	art    *meta.Artifact
}

func startMarkedRun(t *testing.T, g Gomega, namespace string) markedRun {
	t.Helper()
	ctx := context.Background()
	env, artifacts, _ := startProcess(t)
	m := markedRun{c: env.Client}
	var err error
	m.ns, err = env.CreateNamespace(ctx, namespace)
	g.Expect(err).NotTo(HaveOccurred())
	m.policy, err = imagepolicy.Create(ctx, m.c, m.ns, "nginx", imagev1.ImageRef{Name: "nginx", Tag: "1.7.8"})
	g.Expect(err).NotTo(HaveOccurred())
	path := artifactserver.ArtifactPath("GitRepository", m.ns, "repo", "v1.tar.gz")
	m.art, err = artifacts.PublishFiles(path, map[string]string{"main.k": strings.ReplaceAll(markedProgram, "NS", m.ns)}, "")
	g.Expect(err).NotTo(HaveOccurred())
	_, err = artifactserver.CreateSource(ctx, m.c, "GitRepository", m.ns, "repo", m.art)
	g.Expect(err).NotTo(HaveOccurred())
	m.run = &kclv1.KCLRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: m.ns, Name: "web"},
		Spec: kclv1.KCLRunSpec{
			SourceRef: kclv1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "repo"},
			Interval:  metav1.Duration{Duration: time.Hour},
		},
	}
	g.Expect(m.c.Create(ctx, m.run)).To(Succeed())
	return m
}

// images are the Deployment's container images, in order.
func (m markedRun) images(g Gomega) []string {
	var d appsv1.Deployment
	g.Expect(m.c.Get(context.Background(), types.NamespacedName{Namespace: m.ns, Name: "web"}, &d)).To(Succeed())
	var out []string
	for _, ctr := range d.Spec.Template.Spec.Containers {
		out = append(out, ctr.Image)
	}
	return out
}

// TestPolicyChangeRollsOutWithoutANewRevision moves an ImagePolicy's latestRef and
// follows it to the Deployment through the whole process: watcher (policy index),
// NATS, applier, resolver, compiler. The artifact never changes.
func TestPolicyChangeRollsOutWithoutANewRevision(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	m := startMarkedRun(t, g, "policy")
	c, ns, run, policy, art, images := m.c, m.ns, m.run, m.policy, m.art, m.images
	g.Eventually(images, 2*time.Minute, 50*time.Millisecond).Should(Equal([]string{"nginx:1.7.8", "nginx:1.7.7"}), func() string {
		var cur kclv1.KCLRun
		_ = c.Get(ctx, client.ObjectKeyFromObject(run), &cur)
		return fmt.Sprintf("KCLRun status: %+v", cur.Status.Conditions)
	})
	g.Eventually(func(g Gomega) {
		var cur kclv1.KCLRun
		g.Expect(c.Get(ctx, client.ObjectKeyFromObject(run), &cur)).To(Succeed())
		g.Expect(apimeta.IsStatusConditionTrue(cur.Status.Conditions, meta.ReadyCondition)).To(BeTrue())
		g.Expect(cur.Status.ImagePolicies).To(ConsistOf(ns + "/nginx"))
	}, time.Minute, 50*time.Millisecond).Should(Succeed())

	// The policy elects a new tag: no new artifact, the hour-long interval far away.
	written := time.Now()
	g.Expect(imagepolicy.SetLatest(ctx, c, policy, imagev1.ImageRef{Name: "nginx", Tag: "1.7.9"})).To(Succeed())
	g.Eventually(images, time.Minute, 10*time.Millisecond).Should(Equal([]string{"nginx:1.7.9", "nginx:1.7.7"}))
	// Reported, not asserted: it depends on the machine.
	t.Logf("policy status write -> Deployment updated: %s", time.Since(written).Round(time.Millisecond))

	var cur kclv1.KCLRun
	g.Expect(c.Get(ctx, client.ObjectKeyFromObject(run), &cur)).To(Succeed())
	g.Expect(cur.Status.LastAppliedRevision).To(Equal(art.Revision), "the revision never changed")

	// The audit trail without Git: an event per moved image.
	g.Eventually(func(g Gomega) []string {
		var evs corev1.EventList
		g.Expect(c.List(ctx, &evs, client.InNamespace(ns))).To(Succeed())
		var msgs []string
		for _, e := range evs.Items {
			if e.Reason == "ImageUpdated" {
				msgs = append(msgs, e.Message)
			}
		}
		return msgs
	}, time.Minute, 100*time.Millisecond).Should(ContainElement(HavePrefix("nginx:1.7.8 → nginx:1.7.9 (policy " + ns + "/nginx, main.k:2)")))
}
