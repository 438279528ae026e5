package driver

import (
	"context"
	"fmt"
	"sync"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/loadtest/tenant"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/imagepolicy"
)

// firstTag is the image tag every program pins; policies then move it.
const firstTag = "1.0.0"

// setupWorkers bounds the driver's concurrent writes while preparing tenants.
const setupWorkers = 32

// parallel runs fn for 0..n-1 on a few goroutines and returns the first error.
func parallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for range min(setupWorkers, max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(ctx, i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return firstErr
}

// prepareTenant creates a tenant's namespace, its GitRepository with the first artifact and,
// for KCL tenants, the ImagePolicy its marker names.
func (d *driver) prepareTenant(ctx context.Context, c client.Client, t tenant.Tenant) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: t.Namespace()}}
	if err := c.Create(ctx, ns); err != nil {
		return fmt.Errorf("creating namespace %s: %w", t.Namespace(), err)
	}
	if t.Side == tenant.KCL {
		if _, err := imagepolicy.Create(ctx, c, t.Namespace(), tenant.Name, imagev1.ImageRef{Name: t.ImageRepository(), Tag: firstTag}); err != nil {
			return err
		}
	}
	a, err := d.publish(ctx, t, "r1")
	if err != nil {
		return err
	}
	_, err = artifactserver.CreateSource(ctx, c, sourcev1.GitRepositoryKind, t.Namespace(), tenant.Name, a)
	return err
}

// publish serves a tenant's files at a revision as a new artifact.
func (d *driver) publish(ctx context.Context, t tenant.Tenant, revision string) (*meta.Artifact, error) {
	files, err := t.Files(ctx, revision, firstTag)
	if err != nil {
		return nil, err
	}
	path := artifactserver.ArtifactPath(sourcev1.GitRepositoryKind, t.Namespace(), tenant.Name, revision+".tar.gz")
	a, err := d.artifacts.PublishFiles(path, files, "")
	if err != nil {
		return nil, fmt.Errorf("publishing tenant %d: %w", t.Index, err)
	}
	return a, nil
}

// runnerInterval is the periodic reconcile of both sides (the Flux default).
const runnerInterval = 10 * time.Minute

// createRunner creates the tenant's KCLRun or Kustomization.
func createRunner(ctx context.Context, c client.Client, t tenant.Tenant) error {
	var obj client.Object
	switch t.Side {
	case tenant.KCL, badSide:
		run := &v1alpha1.KCLRun{
			ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace(), Name: tenant.Name},
			Spec: v1alpha1.KCLRunSpec{
				SourceRef: v1alpha1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: tenant.Name},
				Interval:  metav1.Duration{Duration: runnerInterval},
				Prune:     true,
			},
		}
		if t.Stage != "" {
			run.Labels = map[string]string{tenant.StageLabel: t.Stage}
		}
		obj = run
	case tenant.Kustomize:
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
			"kind":       "Kustomization",
			"metadata":   map[string]any{"namespace": t.Namespace(), "name": tenant.Name},
			"spec": map[string]any{
				"interval":  runnerInterval.String(),
				"path":      "./",
				"prune":     true,
				"wait":      false,
				"sourceRef": map[string]any{"kind": sourcev1.GitRepositoryKind, "name": tenant.Name},
			},
		}}
		obj = u
	}
	if err := c.Create(ctx, obj); err != nil {
		return fmt.Errorf("creating the runner of %s: %w", t.Namespace(), err)
	}
	return nil
}
