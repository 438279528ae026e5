//go:build linux

package applier_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	. "github.com/onsi/gomega"
	gomegatypes "github.com/onsi/gomega/types"
	"golang.org/x/sys/unix"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/services/applier"
)

func publishAs(name string) func(*v1alpha1.KCLRun) {
	return func(k *v1alpha1.KCLRun) {
		k.Spec.Output = &v1alpha1.Output{
			Mode:             v1alpha1.OutputExternalArtifact,
			ExternalArtifact: &v1alpha1.ExternalArtifactOutput{Name: name},
		}
	}
}

// download fetches an artifact's URL as kustomize-controller would.
func download(g Gomega, a *meta.Artifact) []byte {
	resp, err := http.Get(a.URL)
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK), a.URL)
	data, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	return data
}

func sha256Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// untar returns the files of a tar.gz by name.
func untar(g Gomega, data []byte) map[string]string {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	g.Expect(err).NotTo(HaveOccurred())
	tr := tar.NewReader(gz)
	files := map[string]string{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		g.Expect(err).NotTo(HaveOccurred())
		body, err := io.ReadAll(tr)
		g.Expect(err).NotTo(HaveOccurred())
		files[hdr.Name] = string(body)
	}
	return files
}

func getExternalArtifact(g Gomega, namespace, name string) *sourcev1.ExternalArtifact {
	ea := &sourcev1.ExternalArtifact{}
	g.Expect(env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, ea)).To(Succeed())
	return ea
}

// fsImmutableFlag is FS_IMMUTABLE_FL of linux/fs.h, which x/sys/unix does not name.
const fsImmutableFlag = 0x10

// makeImmutable stops every write into dir, even root's (chmod does not), as
// a read-only volume would, until undo or the cleanup.
func makeImmutable(t *testing.T, dir string) (undo func()) {
	t.Helper()
	set := func(on bool) error {
		f, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err != nil {
			return err
		}
		if on {
			flags |= fsImmutableFlag
		} else {
			flags &^= fsImmutableFlag
		}
		return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		undo = func() { _ = os.Chmod(dir, 0o755) }
	} else {
		if err := set(true); err != nil {
			t.Skipf("cannot make %s immutable here: %v", dir, err)
		}
		undo = func() { _ = set(false) }
	}
	t.Cleanup(undo)
	return undo
}

// spec.output.mode ExternalArtifact: nothing is applied; the objects, as the applier
// would apply them without its owner labels, are served as a tar.gz whose sha256 is the
// ExternalArtifact's status.artifact.digest. The same revision keeps the digest (and
// writes nothing), a new revision moves it; a storage that cannot be written leaves the
// KCLRun Ready=False PublishFailed naming the folder, sends one warning, and keeps the
// previous artifact served.
func TestExternalArtifactOutput(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	first := publishProgram(t, ns, "app", webApp(2, true))
	createKCLRun(t, ns, "web", "app", publishAs("web-rendered"), func(k *v1alpha1.KCLRun) {
		k.Spec.CommonMetadata = &v1alpha1.CommonMetadata{Labels: map[string]string{"team": "web"}}
	})
	obj := readyAt(t, ns, "web", first.Revision)
	g.Expect(readyCondition(obj).Message).To(Equal("Published revision: " + first.Revision + " as ExternalArtifact " + ns + "/web-rendered"))
	g.Expect(obj.Status.Inventory).To(Or(BeNil(), HaveField("Entries", BeEmpty())))
	g.Expect(apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &appsv1.Deployment{}))).
		To(BeTrue(), "mode ExternalArtifact applies nothing")

	ea := getExternalArtifact(g, ns, "web-rendered")
	g.Expect(ea.Spec.SourceRef).To(Equal(&meta.NamespacedObjectKindReference{
		APIVersion: v1alpha1.GroupVersion.String(), Kind: v1alpha1.KCLRunKind, Name: "web", Namespace: ns}))
	g.Expect(metav1.IsControlledBy(ea, obj)).To(BeTrue())
	g.Expect(apimeta.IsStatusConditionTrue(ea.Status.Conditions, meta.ReadyCondition)).To(BeTrue())
	g.Expect(ea.Status.Artifact).To(Equal(obj.Status.Artifact))
	published := ea.Status.Artifact
	g.Expect(published.Revision).To(Equal(first.Revision))
	g.Expect(published.Path).To(Equal("externalartifact/" + ns + "/web-rendered/" + published.Digest[len("sha256:"):] + ".tar.gz"))
	data := download(g, published)
	g.Expect(sha256Digest(data)).To(Equal(published.Digest))
	g.Expect(published.Size).To(HaveValue(BeEquivalentTo(len(data))))

	files := untar(g, data)
	g.Expect(files).To(HaveLen(1))
	g.Expect(files).To(HaveKey("kclrun.yaml"))
	var kinds []string
	for _, doc := range bytes.Split([]byte(files["kclrun.yaml"]), []byte("---\n")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var o metav1.PartialObjectMetadata
		g.Expect(yaml.Unmarshal(doc, &o)).To(Succeed())
		kinds = append(kinds, o.Kind)
		g.Expect(o.Namespace).To(Equal(ns), "namespaced as the applier would apply them")
		g.Expect(o.Labels).To(Equal(map[string]string{"team": "web"}), "commonMetadata, no owner labels")
	}
	g.Expect(kinds).To(Equal([]string{"Service", "Deployment"}), "in the applier's order")

	// The same revision reconciled again (a full check, not a no-op): same digest, same
	// time, and the ExternalArtifact is not written.
	waitQuiet(t, ns+"/web")
	requestedAt := time.Now().Format(time.RFC3339Nano)
	patch := client.MergeFrom(obj.DeepCopy())
	obj.Annotations = map[string]string{meta.ReconcileRequestAnnotation: requestedAt}
	g.Expect(env.Client.Patch(ctx, obj, patch)).To(Succeed())
	request(t, ns, "web", reconcilerequest.ReasonRequested)
	g.Eventually(func(g Gomega) {
		g.Expect(getKCLRun(g, ns, "web").Status.LastHandledReconcileAt).To(Equal(requestedAt))
	}, "1m", "200ms").Should(Succeed())
	g.Expect(tracker.last(ns + "/web").Result).To(Equal(applier.ResultPublished))
	again := getExternalArtifact(g, ns, "web-rendered")
	g.Expect(again.Status.Artifact).To(Equal(published))
	g.Expect(again.ResourceVersion).To(Equal(ea.ResourceVersion))

	// A new revision moves the digest; the previous file is kept (retention 2).
	second := publishProgram(t, ns, "app", webApp(3, true))
	request(t, ns, "web", reconcilerequest.ReasonSourceChanged)
	obj = readyAt(t, ns, "web", second.Revision)
	moved := getExternalArtifact(g, ns, "web-rendered").Status.Artifact
	g.Expect(moved.Digest).NotTo(Equal(published.Digest))
	g.Expect(moved.Revision).To(Equal(second.Revision))
	g.Expect(obj.Status.Artifact).To(Equal(moved))
	g.Expect(sha256Digest(download(g, moved))).To(Equal(moved.Digest))
	g.Eventually(func() []eventv1.Event { return eventsWithReason(ns, "web", v1alpha1.ReconciliationSucceeded) }, "30s").Should(
		ContainElement(HaveField("Message", ContainSubstring("ExternalArtifact/"+ns+"/web-rendered "+moved.Digest+" published"))))

	// The storage folder cannot be written: not Ready, the folder named, one warning,
	// and kustomize-controller keeps fetching the last good artifact.
	dir := filepath.Join(storageDir, "externalartifact", ns, "web-rendered")
	writable := makeImmutable(t, dir)
	third := publishProgram(t, ns, "app", webApp(4, true))
	request(t, ns, "web", reconcilerequest.ReasonSourceChanged)
	g.Eventually(func(g Gomega) {
		obj = getKCLRun(g, ns, "web")
		ready := readyCondition(obj)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(v1alpha1.PublishFailedReason))
		g.Expect(ready.Message).To(ContainSubstring("storage folder " + dir + " cannot be written"))
		g.Expect(obj.Status.LastAttemptedRevision).To(Equal(third.Revision))
	}, "1m", "200ms").Should(Succeed())
	g.Expect(obj.Status.LastAppliedRevision).To(Equal(second.Revision))
	g.Expect(obj.Status.Artifact).To(Equal(moved))
	g.Eventually(func() []eventv1.Event { return eventsWithReason(ns, "web", v1alpha1.PublishFailedReason) }, "30s").Should(
		ConsistOf(And(HaveField("Severity", eventv1.EventSeverityError), HaveField("Message", ContainSubstring(dir)))))
	g.Expect(getExternalArtifact(g, ns, "web-rendered").Status.Artifact).To(Equal(moved))
	g.Expect(sha256Digest(download(g, moved))).To(Equal(moved.Digest))
	// Nothing retries before spec.retryInterval: the warning stays one.
	waitQuiet(t, ns+"/web")
	g.Expect(eventsWithReason(ns, "web", v1alpha1.PublishFailedReason)).To(HaveLen(1))

	// Deleting the KCLRun takes its ExternalArtifact and files with it.
	writable()
	g.Expect(env.Client.Delete(ctx, obj)).To(Succeed())
	request(t, ns, "web", reconcilerequest.ReasonDeleting)
	g.Eventually(func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-rendered"}, &sourcev1.ExternalArtifact{}))
	}, "1m", "200ms").Should(BeTrue())
	g.Expect(dir).NotTo(BeADirectory())
	resp, err := http.Get(moved.URL)
	g.Expect(err).NotTo(HaveOccurred())
	_ = resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
	assertNoOverlap(t)
}

// changeKCLRun patches the KCLRun's spec and asks for the reconcile the watcher would.
func changeKCLRun(t *testing.T, namespace, name string, mutate func(*v1alpha1.KCLRun)) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		obj := getKCLRun(g, namespace, name)
		patch := client.MergeFromWithOptions(obj.DeepCopy(), client.MergeFromWithOptimisticLock{})
		mutate(obj)
		g.Expect(env.Client.Patch(context.Background(), obj, patch)).To(Succeed())
	}, "30s", "200ms").Should(Succeed())
	request(t, namespace, name, reconcilerequest.ReasonGenerationChanged)
}

func externalArtifactGone(namespace, name string) func() bool {
	return func() bool {
		err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, &sourcev1.ExternalArtifact{})
		return apierrors.IsNotFound(err)
	}
}

// What a KCLRun no longer publishes is garbage-collected, as Flux prunes what left its
// inventory: a new spec.output.externalArtifact.name deletes the old ExternalArtifact and
// its files once the new one is published; one that names another producer keeps its
// object and files; back to mode Apply, the objects are applied and the last
// ExternalArtifact and its files go. Each deletion is a Pruned event.
func TestExternalArtifactNoLongerPublishedIsDeleted(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	folder := func(name string) string { return filepath.Join(storageDir, "externalartifact", ns, name) }
	ours := func(g Gomega, name string) *sourcev1.ExternalArtifact {
		ea := getExternalArtifact(g, ns, name)
		g.Expect(ea.Spec.SourceRef).To(HaveField("Name", "web"))
		g.Expect(apimeta.IsStatusConditionTrue(ea.Status.Conditions, meta.ReadyCondition)).To(BeTrue())
		return ea
	}
	prunedEvent := func(name, why string) gomegatypes.GomegaMatcher {
		return And(HaveField("Severity", eventv1.EventSeverityInfo),
			HaveField("Message", "ExternalArtifact/"+ns+"/"+name+" deleted: no longer published ("+why+")"))
	}

	first := publishProgram(t, ns, "app", webApp(2, true))
	createKCLRun(t, ns, "web", "app", publishAs("web-old"))
	obj := readyAt(t, ns, "web", first.Revision)
	old := obj.Status.Artifact
	g.Expect(old.Path).To(HavePrefix("externalartifact/" + ns + "/web-old/"))
	ours(g, "web-old")

	// Renamed: the new one is published, the old one and its files are gone.
	changeKCLRun(t, ns, "web", publishAs("web-new"))
	obj = readyAt(t, ns, "web", first.Revision)
	g.Expect(readyCondition(obj).Message).To(HaveSuffix("as ExternalArtifact " + ns + "/web-new"))
	renamed := ours(g, "web-new")
	g.Expect(obj.Status.Artifact).To(Equal(renamed.Status.Artifact))
	g.Expect(externalArtifactGone(ns, "web-old")()).To(BeTrue())
	g.Expect(folder("web-old")).NotTo(BeADirectory())
	resp, err := http.Get(old.URL)
	g.Expect(err).NotTo(HaveOccurred())
	_ = resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusNotFound))
	g.Eventually(func() []eventv1.Event { return eventsWithReason(ns, "web", v1alpha1.PrunedReason) }, "30s").Should(
		ConsistOf(prunedEvent("web-old", "spec.output.externalArtifact.name is web-new")))

	// web-new is now another producer's (its sourceRef names it): renaming again
	// leaves it, and the files it points at, alone.
	waitQuiet(t, ns+"/web")
	patch := client.MergeFrom(renamed.DeepCopy())
	renamed.Spec.SourceRef = &meta.NamespacedObjectKindReference{
		APIVersion: v1alpha1.GroupVersion.String(), Kind: v1alpha1.KCLRunKind, Name: "other", Namespace: ns}
	g.Expect(env.Client.Patch(ctx, renamed, patch)).To(Succeed())
	changeKCLRun(t, ns, "web", publishAs("web-last"))
	obj = readyAt(t, ns, "web", first.Revision)
	ours(g, "web-last")
	g.Expect(obj.Status.Artifact.Path).To(HavePrefix("externalartifact/" + ns + "/web-last/"))
	theirs := getExternalArtifact(g, ns, "web-new")
	g.Expect(theirs.Spec.SourceRef).To(HaveField("Name", "other"))
	g.Expect(theirs.ResourceVersion).To(Equal(renamed.ResourceVersion))
	g.Expect(filepath.Join(storageDir, filepath.FromSlash(theirs.Status.Artifact.Path))).To(BeARegularFile())

	// Back to Apply: the objects are applied, the last ExternalArtifact and its files go.
	last := obj.Status.Artifact
	changeKCLRun(t, ns, "web", func(k *v1alpha1.KCLRun) { k.Spec.Output = nil })
	obj = readyAt(t, ns, "web", first.Revision)
	g.Expect(readyCondition(obj).Message).To(Equal("Applied revision: " + first.Revision))
	g.Expect(obj.Status.Artifact).To(BeNil())
	g.Expect(obj.Status.Inventory.Entries).To(HaveLen(2))
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &appsv1.Deployment{})).To(Succeed())
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &corev1.Service{})).To(Succeed())
	g.Expect(externalArtifactGone(ns, "web-last")()).To(BeTrue())
	g.Expect(folder("web-last")).NotTo(BeADirectory())
	g.Expect(filepath.Join(storageDir, filepath.FromSlash(last.Path))).NotTo(BeAnExistingFile())
	g.Expect(getExternalArtifact(g, ns, "web-new").Spec.SourceRef).To(HaveField("Name", "other"))
	g.Eventually(func() []eventv1.Event { return eventsWithReason(ns, "web", v1alpha1.PrunedReason) }, "30s").Should(
		ConsistOf(prunedEvent("web-old", "spec.output.externalArtifact.name is web-new"),
			prunedEvent("web-last", "spec.output.mode is Apply")))
	assertNoOverlap(t)
}

// A failure to remove what the KCLRun no longer publishes is PruneFailed, as a prune's:
// Ready=False naming the ExternalArtifact and the folder, one warning, the objects applied
// all the same, status.artifact kept as the record; the retry finishes the job.
func TestExternalArtifactNoLongerPublishedDeletionFails(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	first := publishProgram(t, ns, "app", webApp(1, false))
	createKCLRun(t, ns, "web", "app", publishAs("web-rendered"))
	published := readyAt(t, ns, "web", first.Revision).Status.Artifact
	dir := filepath.Join(storageDir, "externalartifact", ns, "web-rendered")
	writable := makeImmutable(t, dir)

	changeKCLRun(t, ns, "web", func(k *v1alpha1.KCLRun) { k.Spec.Output = nil })
	var obj *v1alpha1.KCLRun
	g.Eventually(func(g Gomega) {
		obj = getKCLRun(g, ns, "web")
		g.Expect(obj.Status.ObservedGeneration).To(Equal(obj.Generation))
		ready := readyCondition(obj)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
		g.Expect(ready.Reason).To(Equal(v1alpha1.PruneFailedReason))
		g.Expect(ready.Message).To(And(
			HavePrefix("removing ExternalArtifact "+ns+"/web-rendered, which this KCLRun no longer publishes, and its files: "),
			ContainSubstring("storage folder "+dir+" cannot be written")))
	}, "1m", "200ms").Should(Succeed())
	g.Expect(obj.Status.Artifact).To(Equal(published), "the record of what is left to remove")
	g.Expect(obj.Status.Inventory.Entries).To(HaveLen(1))
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, &appsv1.Deployment{})).To(Succeed())
	g.Eventually(func() []eventv1.Event { return eventsWithReason(ns, "web", v1alpha1.PruneFailedReason) }, "30s").Should(
		ConsistOf(And(HaveField("Severity", eventv1.EventSeverityError), HaveField("Message", ContainSubstring(dir)))))
	waitQuiet(t, ns+"/web")
	g.Expect(eventsWithReason(ns, "web", v1alpha1.PruneFailedReason)).To(HaveLen(1))

	// The retry (the watcher's, at spec.retryInterval) removes the files and drops the record.
	writable()
	request(t, ns, "web", reconcilerequest.ReasonRetryIntervalElapsed)
	obj = readyAt(t, ns, "web", first.Revision)
	g.Expect(readyCondition(obj).Message).To(Equal("Applied revision: " + first.Revision))
	g.Expect(obj.Status.Artifact).To(BeNil())
	g.Expect(dir).NotTo(BeADirectory())
	g.Expect(externalArtifactGone(ns, "web-rendered")()).To(BeTrue())
	assertNoOverlap(t)
}

// A name another producer holds is refused before anything is stored: the
// KCLRun is PublishFailed, and no file of it lands in that producer's folder
// (whose retention pruning would then run there).
func TestExternalArtifactOfAnotherProducerGetsNoFile(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	theirs := &sourcev1.ExternalArtifact{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken"},
		Spec: sourcev1.ExternalArtifactSpec{SourceRef: &meta.NamespacedObjectKindReference{
			APIVersion: v1alpha1.GroupVersion.String(), Kind: v1alpha1.KCLRunKind, Name: "other", Namespace: ns}},
	}
	g.Expect(env.Client.Create(ctx, theirs)).To(Succeed())
	publishProgram(t, ns, "app", webApp(1, true))
	createKCLRun(t, ns, "web", "app", publishAs("taken"))
	g.Eventually(func(g Gomega) {
		ready := readyCondition(getKCLRun(g, ns, "web"))
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(v1alpha1.PublishFailedReason))
		g.Expect(ready.Message).To(ContainSubstring("is not this KCLRun's"))
	}, "1m", "200ms").Should(Succeed())
	g.Expect(filepath.Join(storageDir, "externalartifact", ns, "taken")).NotTo(BeAnExistingFile())
	g.Expect(getExternalArtifact(g, ns, "taken").Spec.SourceRef).To(HaveField("Name", "other"))
}
