package watcher

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	kclv1 "github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Field indexes on KCLRuns, so a change of another object finds only the
// KCLRuns that reference it.
const (
	// indexSourceRef holds "<Kind>/<namespace>/<name>" of the KCLRun's source.
	indexSourceRef = ".spec.sourceRef"
	// indexDependsOn holds "<namespace>/<name>" of each KCLRun in spec.dependsOn.
	indexDependsOn = ".spec.dependsOn"
	// indexImagePolicies holds each "namespace/name" of status.imagePolicies.
	indexImagePolicies = ".status.imagePolicies"
)

func sourceKey(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

func objectKey(namespace, name string) string { return namespace + "/" + name }

func indexKCLRunSourceRef(o client.Object) []string {
	run, ok := o.(*kclv1.KCLRun)
	if !ok {
		return nil
	}
	return []string{sourceKey(run.Spec.SourceRef.Kind, run.SourceNamespace(), run.Spec.SourceRef.Name)}
}

func indexKCLRunDependsOn(o client.Object) []string {
	run, ok := o.(*kclv1.KCLRun)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(run.Spec.DependsOn))
	for _, d := range run.Spec.DependsOn {
		ns := d.Namespace
		if ns == "" {
			ns = run.Namespace
		}
		keys = append(keys, objectKey(ns, d.Name))
	}
	return keys
}

func indexKCLRunImagePolicies(o client.Object) []string {
	run, ok := o.(*kclv1.KCLRun)
	if !ok {
		return nil
	}
	return append([]string(nil), run.Status.ImagePolicies...)
}

func registerIndexes(ctx context.Context, indexer client.FieldIndexer) error {
	for field, fn := range map[string]client.IndexerFunc{
		indexSourceRef:     indexKCLRunSourceRef,
		indexDependsOn:     indexKCLRunDependsOn,
		indexImagePolicies: indexKCLRunImagePolicies,
	} {
		if err := indexer.IndexField(ctx, &kclv1.KCLRun{}, field, fn); err != nil {
			return fmt.Errorf("indexing KCLRuns by %s: %w", field, err)
		}
	}
	return nil
}
