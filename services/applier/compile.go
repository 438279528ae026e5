package applier

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// Compiler is the compiler worker as the applier uses it (*workerclient.Client).
type Compiler interface {
	Compile(ctx context.Context, in workerclient.CompileInput) (*workerclient.Compiled, error)
}

// Resolver is the resolver worker as the applier uses it (*workerclient.Client).
type Resolver interface {
	ResolveWithLookup(ctx context.Context, in workerclient.ResolveInput, lookup workerclient.PolicyLookup) (*workerclient.Resolved, error)
}

// programError is a failure of the program itself (syntax, type, runtime,
// output): Ready=False until the source or the KCLRun changes.
type programError struct {
	msg string
	// dependencyRefused: the compiler's package-source policy refused a kcl.mod dependency.
	dependencyRefused bool
}

func (e *programError) Error() string { return e.msg }

// artifactError is an artifact that could not be fetched or verified: retried
// with backoff, since source-controller may be replacing it, unless the
// artifact is refused for its content (too large, unsafe paths, no such
// path), which only a new revision changes: that waits for the retry
// interval, as any failure does in Flux.
type artifactError struct {
	msg       string
	permanent bool
}

func (e *artifactError) Error() string { return e.msg }

// specError is a request the workers refuse as invalid: terminal.
type specError struct{ msg string }

func (e *specError) Error() string { return e.msg }

func artifactOf(a *meta.Artifact) workerclient.Artifact {
	return workerclient.Artifact{URL: a.URL, Revision: a.Revision, Digest: a.Digest}
}

// resolution is what the resolver decided for the program's image markers.
type resolution struct {
	policies []string
	// used are the policies' values this resolution used, in the order of
	// policies: the fingerprint of the next reconcile reads them in that order.
	used          []workerclient.ImagePolicy
	substitutions []workerclient.Substitution
	images        []v1alpha1.ResolvedImage
	held          []string
	// rollouts is what ImageRollouts gave, in the order of policies.
	rollouts []v1alpha1.KCLRunRollout
}

// givenImages are what ImageRollouts gave a KCLRun, by policy "namespace/name".
type givenImages map[string]v1alpha1.KCLRunRollout

// sameImages reports whether status.imageRollouts already shows the images
// the rollouts give (heldBack aside): if not, the reconcile is no no-op, so
// that the status, which the watcher's gates read, catches up even when the
// applied image does not change.
func (g givenImages) sameImages(status []v1alpha1.KCLRunRollout) bool {
	if len(g) != len(status) {
		return false
	}
	for _, r := range status {
		want, ok := g[r.Policy]
		if !ok || want.Rollout != r.Rollout || want.Stage != r.Stage || want.Image != r.Image {
			return false
		}
	}
	return true
}

// inOrder lists what was given in the order of the policies.
func (g givenImages) inOrder(policies []string) []v1alpha1.KCLRunRollout {
	var out []v1alpha1.KCLRunRollout
	for _, p := range policies {
		if r, ok := g[p]; ok {
			out = append(out, r)
		}
	}
	return out
}

// knownPolicies reads the ImagePolicies the last attempt referenced.
func (s *Service) knownPolicies(ctx context.Context, obj *v1alpha1.KCLRun) ([]workerclient.ImagePolicy, givenImages, error) {
	out := make([]workerclient.ImagePolicy, 0, len(obj.Status.ImagePolicies))
	given := givenImages{}
	for _, ref := range obj.Status.ImagePolicies {
		ns, name, ok := strings.Cut(ref, "/")
		if !ok {
			ns, name = obj.Namespace, ref
		}
		p, g, err := s.lookupPolicy(ctx, obj, ns, name)
		if err != nil {
			return nil, nil, err
		}
		if g != nil {
			given[g.Policy] = *g
		}
		out = append(out, p)
	}
	return out, given, nil
}

// lookupPolicy is the workerclient.PolicyLookup of the applier: the policy's
// election, or the image its ImageRollout gives obj's stage (then also
// returned as given).
func (s *Service) lookupPolicy(ctx context.Context, obj *v1alpha1.KCLRun, namespace, name string) (workerclient.ImagePolicy, *v1alpha1.KCLRunRollout, error) {
	p := workerclient.ImagePolicy{Namespace: namespace, Name: name}
	key := types.NamespacedName{Namespace: namespace, Name: name}
	policy := &imagev1.ImagePolicy{}
	if !cachedGet(ctx, key, policy) {
		// Not in the cache may be not listed there yet: only the apiserver says it is missing.
		policy = &imagev1.ImagePolicy{}
		if err := s.client.Get(ctx, key, policy); err != nil {
			if apierrors.IsNotFound(err) {
				return p, nil, nil
			}
			return p, nil, fmt.Errorf("reading ImagePolicy %s/%s: %w", namespace, name, err)
		}
	}
	p.Found = true
	if r := policy.Status.LatestRef; r != nil {
		p.LatestRef = &workerclient.LatestRef{Name: r.Name, Tag: r.Tag, Digest: r.Digest}
	}
	given, err := s.rollouts.give(ctx, s.client, obj, &p, s.cfg.NoCrossNamespaceRefs)
	if err != nil {
		return p, nil, err
	}
	return p, given, nil
}

// resolve asks the resolver for the program's image-policy substitutions.
func (s *Service) resolve(ctx context.Context, obj *v1alpha1.KCLRun, a *meta.Artifact, known []workerclient.ImagePolicy, given givenImages) (*resolution, error) {
	if s.resolver == nil {
		return &resolution{}, nil
	}
	var mu sync.Mutex
	seen := map[string]workerclient.ImagePolicy{}
	for _, p := range known {
		seen[p.Namespace+"/"+p.Name] = p
	}
	lookup := func(ctx context.Context, namespace, name string) (workerclient.ImagePolicy, error) {
		p, g, err := s.lookupPolicy(ctx, obj, namespace, name)
		if err == nil {
			mu.Lock()
			seen[namespace+"/"+name] = p
			if g != nil {
				given[g.Policy] = *g
			}
			mu.Unlock()
		}
		return p, err
	}
	resp, err := s.resolver.ResolveWithLookup(ctx, workerclient.ResolveInput{
		Artifact:             artifactOf(a),
		Path:                 obj.Spec.Path,
		Namespace:            obj.Namespace,
		Policies:             known,
		NoCrossNamespaceRefs: s.cfg.NoCrossNamespaceRefs,
		Settings:             settingsOf(obj),
	}, lookup)
	if err != nil {
		var re *workerclient.ResolveError
		if errors.As(err, &re) {
			if re.Stage == workerclient.StageArtifact {
				return nil, &artifactError{msg: "artifact: " + re.Message, permanent: artifact.Permanent(re.Kind)}
			}
			return nil, &programError{msg: located(re.File, re.Line, re.Col, "", re.Message)}
		}
		return nil, rpcError("resolver", err)
	}
	r := &resolution{policies: resp.Policies, substitutions: resp.Substitutions()}
	for _, ref := range resp.Policies {
		ns, name, ok := strings.Cut(ref, "/")
		if !ok {
			ns, name = obj.Namespace, ref
		}
		p, ok := seen[ns+"/"+name]
		if !ok {
			var g *v1alpha1.KCLRunRollout
			if p, g, err = s.lookupPolicy(ctx, obj, ns, name); err != nil {
				return nil, err
			}
			if g != nil {
				given[g.Policy] = *g
			}
		}
		r.used = append(r.used, p)
		if g, ok := given[ns+"/"+name]; ok {
			r.rollouts = append(r.rollouts, g)
		}
	}
	for _, res := range resp.Resolutions {
		r.images = append(r.images, v1alpha1.ResolvedImage{
			Policy: res.Marker.Policy, Location: res.Marker.Location(), From: res.Marker.Value, To: res.Value,
		})
	}
	for _, h := range resp.Holds {
		r.held = append(r.held, fmt.Sprintf("%s (%s): %s: %s", h.Marker.Location(), h.Marker.Policy, h.Reason, h.Message))
	}
	return r, nil
}

// compile runs the program on a compiler worker; it returns the objects and
// their digest.
func (s *Service) compile(ctx context.Context, obj *v1alpha1.KCLRun, a *meta.Artifact, args []workerclient.Argument, subs []workerclient.Substitution) ([]*unstructured.Unstructured, string, error) {
	creds, err := s.registryCredentials(ctx, obj)
	if err != nil {
		return nil, "", err
	}
	compiled, err := s.compiler.Compile(ctx, workerclient.CompileInput{
		Artifact:            artifactOf(a),
		Path:                obj.Spec.Path,
		Config:              compileConfig(obj.Spec.Config),
		Arguments:           args,
		Substitutions:       subs,
		Timeout:             obj.GetTimeout(),
		KCLRun:              obj.Namespace + "/" + obj.Name,
		RegistryCredentials: creds,
	})
	if err != nil {
		var ce *workerclient.CompileError
		if errors.As(err, &ce) {
			if ce.Stage == workerclient.StageArtifact {
				return nil, "", &artifactError{msg: "artifact: " + ce.Message, permanent: artifact.Permanent(ce.Kind)}
			}
			return nil, "", &programError{msg: located(ce.File, ce.Line, ce.Col, ce.Kind, ce.Message),
				dependencyRefused: ce.Kind == v1alpha1.DependencyRefusedReason}
		}
		return nil, "", rpcError("compiler", err)
	}
	obj.Status.Packages = packagesStatus(compiled.Packages)
	for i, u := range compiled.Objects {
		if u.GetName() == "" || u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, "", &programError{
				msg: fmt.Sprintf("output document %d is not a Kubernetes object (apiVersion, kind and metadata.name are required)", i+1)}
		}
	}
	return compiled.Objects, compiled.OutputDigest, nil
}

// located formats "file:line:col: kind: message" as far as known.
func located(file string, line, col int, kind, msg string) string {
	var b strings.Builder
	if file != "" {
		b.WriteString(file)
		if line > 0 {
			fmt.Fprintf(&b, ":%d", line)
			if col > 0 {
				fmt.Fprintf(&b, ":%d", col)
			}
		}
		b.WriteString(": ")
	}
	if kind != "" {
		b.WriteString(kind)
		b.WriteString(": ")
	}
	b.WriteString(msg)
	return b.String()
}

// rpcError sorts a failed worker call: invalid requests are terminal, the
// rest (unavailable, deadline, exhausted) transient.
func rpcError(worker string, err error) error {
	if st, ok := status.FromError(err); ok && st.Code() == codes.InvalidArgument {
		return &specError{msg: fmt.Sprintf("%s refused the request: %s", worker, st.Message())}
	}
	return fmt.Errorf("%s call failed: %w", worker, err)
}

// settingsOf is spec.config.settings, whose entry files hold markers too.
func settingsOf(obj *v1alpha1.KCLRun) []string {
	if obj.Spec.Config == nil {
		return nil
	}
	return obj.Spec.Config.Settings
}
