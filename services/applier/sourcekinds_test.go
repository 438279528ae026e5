package applier_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/artifactserver"
)

// TestEverySourceKindDelivers runs the same program from each non-Git source kind: the
// first revision becomes Ready and a new revision updates the Deployment.
func TestEverySourceKindDelivers(t *testing.T) {
	for _, kind := range []string{"OCIRepository", "Bucket", "ExternalArtifact"} {
		t.Run(kind, func(t *testing.T) {
			g := NewWithT(t)
			ctx := context.Background()
			ns := newNamespace(t)
			first := publishKindProgram(t, kind, ns, "app", webApp(1, true))
			createKCLRun(t, ns, "web", "app", func(o *v1alpha1.KCLRun) { o.Spec.SourceRef.Kind = kind })
			obj := readyAt(t, ns, "web", first.Revision)
			g.Expect(obj.Status.Inventory.Entries).To(HaveLen(2))

			second := publishKindProgram(t, kind, ns, "app", webApp(4, true))
			request(t, ns, "web", reconcilerequest.ReasonSourceChanged)
			readyAt(t, ns, "web", second.Revision)
			deploy := &appsv1.Deployment{}
			g.Expect(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, deploy)).To(Succeed())
			g.Expect(*deploy.Spec.Replicas).To(BeEquivalentTo(4))
			assertNoOverlap(t)
		})
	}
}

// publishKindProgram serves main.k as a new revision of a source of the given kind.
func publishKindProgram(t testing.TB, kind, namespace, source, mainK string) *meta.Artifact {
	t.Helper()
	ctx := context.Background()
	n := revisionSeq.Add(1)
	path := artifactserver.ArtifactPath(kind, namespace, source, fmt.Sprintf("rev-%d.tar.gz", n))
	artifact, err := artifacts.PublishFiles(path, map[string]string{"main.k": mainK}, fmt.Sprintf("v%d@sha256:%064d", n, n))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := artifactserver.NewSource(kind, namespace, source)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		if _, err := artifactserver.CreateSource(ctx, env.Client, kind, namespace, source, artifact); err != nil {
			t.Fatal(err)
		}
		return artifact
	}
	if err := artifactserver.SetArtifact(ctx, env.Client, obj, artifact); err != nil {
		t.Fatal(err)
	}
	return artifact
}
