package applier_test

import (
	"crypto/rand"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// expectArtifactFailed checks Ready=False/ArtifactFailed with a message matching pattern.
func expectArtifactFailed(g Gomega, ns, name, pattern string) {
	ready := readyCondition(getKCLRun(g, ns, name))
	g.Expect(ready).NotTo(BeNil())
	g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
	g.Expect(ready.Reason).To(Equal(meta.ArtifactFailedReason))
	g.Expect(ready.Message).To(MatchRegexp(pattern))
}

// expectArtifactFailure waits for Ready=False/ArtifactFailed with a message
// matching pattern, and for at least two attempts (the failure is retried).
func expectArtifactFailure(t *testing.T, ns, name, pattern string) {
	t.Helper()
	g := NewWithT(t)
	key := ns + "/" + name
	before := tracker.count(key)
	g.Eventually(func(g Gomega) {
		expectArtifactFailed(g, ns, name, pattern)
		g.Expect(tracker.count(key) - before).To(BeNumerically(">=", 2))
	}, "2m").Should(Succeed())
}

func TestArtifactDigestMismatchIsRetried(t *testing.T) {
	ns := newNamespace(t)
	good := publishProgram(t, ns, "app", configMap("settings", "v1"))
	createKCLRun(t, ns, "app", "app")
	readyAt(t, ns, "app", good.Revision)

	// The claimed content is unique to this test run: the compiler caches
	// verified artifacts by digest and serves a digest it verified before
	// (another test's configMap("settings", "v2"), or this test's in an
	// earlier -count iteration) without downloading the tampered bytes.
	path := artifactserver.ArtifactPath("GitRepository", ns, "app", "tampered.tar.gz")
	artifact, err := artifacts.PublishFiles(path, map[string]string{"main.k": configMap("settings", "claimed-"+ns)}, "main@sha1:tampered")
	if err != nil {
		t.Fatal(err)
	}
	data, err := artifactserver.TarGz(map[string]string{"main.k": configMap("settings", "evil")})
	if err != nil {
		t.Fatal(err)
	}
	if err := artifacts.Replace(path, data); err != nil {
		t.Fatal(err)
	}
	setArtifact(t, ns, "app", artifact)
	request(t, ns, "app", reconcilerequest.ReasonSourceChanged)
	expectArtifactFailure(t, ns, "app", `(?i)digest`)

	// The controller recovers when the source serves a sound artifact again.
	fixed := publishProgram(t, ns, "app", configMap("settings", "v3"))
	request(t, ns, "app", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "app", fixed.Revision)
}

func TestArtifactNotFoundIsRetried(t *testing.T) {
	ns := newNamespace(t)
	// Content unique to this test: the compiler caches artifacts by digest.
	artifact := publishProgram(t, ns, "app", configMap("settings", ns))
	if err := artifacts.Remove(artifact.Path); err != nil {
		t.Fatal(err)
	}
	createKCLRun(t, ns, "app", "app")
	expectArtifactFailure(t, ns, "app", `404|[Nn]ot [Ff]ound`)
	obj := getKCLRun(NewWithT(t), ns, "app")
	if obj.Status.Inventory != nil && len(obj.Status.Inventory.Entries) > 0 {
		t.Fatalf("inventory after a failed first attempt: %v", obj.Status.Inventory.Entries)
	}
}

func TestArtifactOversizeIsRefused(t *testing.T) {
	ns := newNamespace(t)
	noise := make([]byte, 2*maxArtifactBytes)
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	publishRefusedArchive(t, ns, "big", map[string]string{"main.k": configMap("big", "1"), "noise.bin": string(noise)})
	expectArtifactRefused(t, ns, "big", `(?i)artifact too large`)

	// A new revision is tried at once.
	fixed := publishProgram(t, ns, "big", configMap("big", "2"))
	request(t, ns, "big", reconcilerequest.ReasonSourceChanged)
	readyAt(t, ns, "big", fixed.Revision)
}

func TestArtifactWithUnsafePathsIsRefused(t *testing.T) {
	ns := newNamespace(t)
	publishRefusedArchive(t, ns, "evil", map[string]string{"main.k": configMap("evil", "1"), "../../escape.k": "x = 1\n"})
	expectArtifactRefused(t, ns, "evil", `outside its root`)
}

// publishRefusedArchive serves files as name's artifact (a tar.gz built as
// given, whatever its paths) and creates the KCLRun of it.
func publishRefusedArchive(t *testing.T, ns, name string, files map[string]string) {
	t.Helper()
	data, err := artifactserver.TarGz(files)
	if err != nil {
		t.Fatal(err)
	}
	path := artifactserver.ArtifactPath("GitRepository", ns, name, name+".tar.gz")
	artifact, err := artifacts.PublishBytes(path, data, "main@sha1:"+name)
	if err != nil {
		t.Fatal(err)
	}
	setArtifact(t, ns, name, artifact)
	createKCLRun(t, ns, name, name, func(k *v1alpha1.KCLRun) { k.Spec.Path = "" })
}

// expectArtifactRefused waits for Ready=False/ArtifactFailed with a message
// matching pattern, and then sees no further attempt for a while: an artifact
// refused for its content waits for a new revision or the retry interval
// (backoff would have tried again after 1 s and 2 s).
func expectArtifactRefused(t *testing.T, ns, name, pattern string) {
	t.Helper()
	g := NewWithT(t)
	key := ns + "/" + name
	g.Eventually(func(g Gomega) {
		expectArtifactFailed(g, ns, name, pattern)
		g.Expect(tracker.count(key)).To(BeNumerically(">=", 1))
	}, "1m").Should(Succeed())
	attempts := tracker.count(key)
	g.Consistently(func() int { return tracker.count(key) }, "4s", "200ms").Should(Equal(attempts))
}

// A source whose artifact server refuses connections fails its reconcile at
// once and retries with backoff, without holding one of the applier's slots
// while it waits: tenants next to many such sources keep converging. (Inside
// a fetch, the HTTP client would wait 5 s and 10 s between retries, with
// the slot.)
func TestUnreachableArtifactsDoNotHoldSlots(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()

	const unreachable = 8 // twice the applier's concurrency
	for i := range unreachable {
		name := fmt.Sprintf("gone-%d", i)
		a := publishProgram(t, ns, name, configMap(name, "v1"))
		a.URL = refused + "/" + a.Path
		setArtifact(t, ns, name, a)
		createKCLRun(t, ns, name, name)
	}
	g.Eventually(func(g Gomega) {
		for i := range unreachable {
			ready := readyCondition(getKCLRun(g, ns, fmt.Sprintf("gone-%d", i)))
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Reason).To(Equal(meta.ArtifactFailedReason))
			g.Expect(ready.Message).To(MatchRegexp(`(?i)connection refused`))
		}
	}, "1m", "200ms").Should(Succeed())

	start := time.Now()
	ok := publishProgram(t, ns, "healthy", configMap("healthy", "v1"))
	createKCLRun(t, ns, "healthy", "healthy")
	g.Eventually(func(g Gomega) {
		obj := getKCLRun(g, ns, "healthy")
		g.Expect(obj.Status.LastAppliedRevision).To(Equal(ok.Revision))
	}, "10s", "100ms").Should(Succeed())
	t.Logf("healthy KCLRun applied %v after creation, beside %d unreachable sources", time.Since(start).Round(time.Millisecond), unreachable)
}
