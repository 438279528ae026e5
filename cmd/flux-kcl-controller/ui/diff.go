package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/localbuild"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/runaction"
	"github.com/kcl-lang/flux-kcl-controller/cmd/flux-kcl-controller/rundiff"
	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
)

// artifacts downloads the sources' artifacts for the diffs, once per process.
type artifacts struct {
	once    sync.Once
	fetcher *artifact.Fetcher
	err     error
}

func (a *artifacts) get() (*artifact.Fetcher, error) {
	a.once.Do(func() {
		dir := filepath.Join(os.TempDir(), "flux-kcl-controller-ui-artifacts")
		a.fetcher, a.err = artifact.New(artifact.Options{CacheDir: dir, MaxCacheBytes: 256 << 20})
	})
	return a.fetcher, a.err
}

// diff compiles the KCLRun's program (its source's artifact, at spec.path) with the run's
// inputs and dry-runs it against the cluster as the user, with `diff`'s own code. The answer
// is plain text, Secret values masked.
func (s *Server) diff(w http.ResponseWriter, r *http.Request, sess *session) {
	key := types.NamespacedName{Namespace: r.PathValue("namespace"), Name: r.PathValue("name")}
	ctx, cancel := requestContext(r)
	defer cancel()
	var out bytes.Buffer
	changed, err := s.runDiff(ctx, sess, key, &out)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case err != nil:
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprintf(w, "%s✗ %s\n", out.String(), err)
	case !changed:
		fmt.Fprintf(w, "%s✔ no differences: the cluster is what the program renders\n", out.String())
	default:
		_, _ = out.WriteTo(w)
	}
}

func (s *Server) runDiff(ctx context.Context, sess *session, key types.NamespacedName, out io.Writer) (bool, error) {
	run := &v1alpha1.KCLRun{}
	if err := sess.client.Get(ctx, key, run); err != nil {
		return false, refused("reading KCLRun "+key.String(), err)
	}
	srcKey, gvk, err := runaction.Source(run)
	if err != nil {
		return false, err
	}
	src := &unstructured.Unstructured{}
	src.SetGroupVersionKind(gvk)
	if err := sess.client.Get(ctx, srcKey, src); err != nil {
		return false, refused(fmt.Sprintf("reading %s %s", gvk.Kind, srcKey), err)
	}
	var ref artifact.Ref
	ref.URL, _, _ = unstructured.NestedString(src.Object, "status", "artifact", "url")
	ref.Revision, _, _ = unstructured.NestedString(src.Object, "status", "artifact", "revision")
	ref.Digest, _, _ = unstructured.NestedString(src.Object, "status", "artifact", "digest")
	if ref.URL == "" {
		return false, fmt.Errorf("%s %s has no artifact yet", gvk.Kind, srcKey)
	}
	fetcher, err := s.artifacts.get()
	if err != nil {
		return false, err
	}
	root, release, err := fetcher.Open(ctx, ref)
	if err != nil {
		return false, fmt.Errorf("downloading the artifact of %s %s: %w", gvk.Kind, srcKey, err)
	}
	defer release()
	dir := filepath.Join(root, filepath.Clean("/"+run.Spec.Path))
	if !strings.HasPrefix(dir, root) {
		return false, errors.New("spec.path leaves the artifact")
	}
	opts := localbuild.Options{Dir: dir, Packages: localbuild.DefaultPackages()}
	if run.Spec.Config != nil {
		opts.Config = run.Spec.Config.DeepCopy()
		opts.Vendor = run.Spec.Config.Vendor
	}
	if err := rundiff.WithRun(ctx, sess.client, run, &opts); err != nil {
		return false, refused("reading the inputs of KCLRun "+key.String(), err)
	}
	objects, err := localbuild.BuildObjects(ctx, opts, io.Discard)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(out, "► compiled %s at %s\n", run.Spec.Path, ref.Revision)
	return rundiff.Diff(ctx, sess.client, run, objects, rundiff.SensitiveValues(opts.ReferencedArguments), out)
}
