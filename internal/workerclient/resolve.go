package workerclient

import (
	"context"
	"fmt"
	"strings"

	resolverv1 "github.com/kcl-lang/flux-kcl-controller/proto/resolver/v1"
)

// ImagePolicy is what the caller knows of an ImagePolicy.
type ImagePolicy struct {
	Namespace, Name string
	// Found is false when the policy does not exist.
	Found bool
	// LatestRef is status.latestRef; nil while the policy has not resolved.
	LatestRef *LatestRef
}

// LatestRef is an ImagePolicy's status.latestRef.
type LatestRef struct{ Name, Tag, Digest string }

// ResolveInput is one resolution.
type ResolveInput struct {
	Artifact             Artifact
	Path                 string
	Namespace            string // of the KCLRun
	Policies             []ImagePolicy
	NoCrossNamespaceRefs bool
	// Settings are spec.config.settings: the entry files they list are scanned too.
	Settings []string
}

// Marker is a $imagepolicy marker found in the program.
type Marker struct {
	Policy    string // "namespace/name"
	Field     string // "Image", "Name", "Tag" or "Digest"
	File      string // relative to the artifact root
	Line, Col int
	Value     string // the literal as written
}

// Location is "file:line", as status.images records it.
func (m Marker) Location() string { return fmt.Sprintf("%s:%d", m.File, m.Line) }

// Resolution is a marker with its new value and the edit that makes it.
type Resolution struct {
	Marker       Marker
	Value        string
	Substitution Substitution
}

// Hold is a marker that cannot be resolved: the program must not be applied as written.
type Hold struct {
	Marker  Marker
	Reason  string // "PolicyNotSupplied", "PolicyNotFound", "PolicyNotReady", "CrossNamespace", "InvalidMarker"
	Message string
}

// Resolved is the resolver's answer.
type Resolved struct {
	// Policies are every policy referenced ("namespace/name"), for status.imagePolicies.
	Policies    []string
	Resolutions []Resolution
	Holds       []Hold
	// Missing are referenced policies the input did not carry.
	Missing []string
}

// Substitutions are the edits to pass to Compile.
func (r *Resolved) Substitutions() []Substitution {
	subs := make([]Substitution, 0, len(r.Resolutions))
	for _, res := range r.Resolutions {
		subs = append(subs, res.Substitution)
	}
	return subs
}

// ResolveError is a failure to scan the program (its artifact or a file).
type ResolveError struct {
	Stage   string // "Artifact" or "Scan"
	Kind    string // for "Artifact", the compiler's word for the same failure
	Message string
	File    string
	Line    int
	Col     int
}

func (e *ResolveError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("resolving image policies: %s", e.Message)
	}
	return fmt.Sprintf("resolving image policies: %s:%d:%d: %s", e.File, e.Line, e.Col, e.Message)
}

// Resolve asks one resolver replica once.
func (c *Client) Resolve(ctx context.Context, in ResolveInput) (*Resolved, error) {
	req := &resolverv1.ResolveRequest{
		Program:              program(in.Artifact, in.Path),
		Namespace:            in.Namespace,
		NoCrossNamespaceRefs: in.NoCrossNamespaceRefs,
		Settings:             in.Settings,
	}
	for _, p := range in.Policies {
		policy := &resolverv1.ImagePolicy{Namespace: p.Namespace, Name: p.Name, Found: p.Found}
		if p.LatestRef != nil {
			policy.LatestRef = &resolverv1.LatestRef{Name: p.LatestRef.Name, Tag: p.LatestRef.Tag, Digest: p.LatestRef.Digest}
		}
		req.Policies = append(req.Policies, policy)
	}
	resp, err := c.resolver.Resolve(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("calling the resolver: %w", err)
	}
	if e := resp.GetError(); e != nil {
		stage := "Scan"
		if e.GetStage() == resolverv1.Error_STAGE_ARTIFACT {
			stage = "Artifact"
		}
		return nil, &ResolveError{Stage: stage, Kind: e.GetKind(), Message: e.GetMessage(), File: e.GetFile(), Line: int(e.GetLine()), Col: int(e.GetCol())}
	}
	out := &Resolved{Policies: resp.GetPolicies(), Missing: resp.GetMissing()}
	for _, r := range resp.GetResolved() {
		out.Resolutions = append(out.Resolutions, Resolution{
			Marker: marker(r.GetMarker()),
			Value:  r.GetValue(),
			Substitution: Substitution{
				File: r.GetSubstitution().GetFile(), Start: r.GetSubstitution().GetStart(), End: r.GetSubstitution().GetEnd(),
				Old: r.GetSubstitution().GetOld(), New: r.GetSubstitution().GetNew(),
			},
		})
	}
	for _, h := range resp.GetHeld() {
		reason := strings.TrimPrefix(h.GetReason().String(), "REASON_")
		out.Holds = append(out.Holds, Hold{Marker: marker(h.GetMarker()), Reason: camel(reason), Message: h.GetMessage()})
	}
	return out, nil
}

// PolicyLookup reads an ImagePolicy, typically from the applier's cache; a
// missing policy is ImagePolicy{Found: false}, not an error.
type PolicyLookup func(ctx context.Context, namespace, name string) (ImagePolicy, error)

// ResolveWithLookup calls Resolve and, when the resolver names policies the input
// did not carry, looks them up and calls once more. The second call is cheap:
// the worker has the artifact cached.
func (c *Client) ResolveWithLookup(ctx context.Context, in ResolveInput, lookup PolicyLookup) (*Resolved, error) {
	resolved, err := c.Resolve(ctx, in)
	if err != nil || len(resolved.Missing) == 0 {
		return resolved, err
	}
	for _, ref := range resolved.Missing {
		namespace, name, ok := strings.Cut(ref, "/")
		if !ok {
			return nil, fmt.Errorf("resolver named policy %q, not namespace/name", ref)
		}
		policy, err := lookup(ctx, namespace, name)
		if err != nil {
			return nil, fmt.Errorf("looking up ImagePolicy %s: %w", ref, err)
		}
		policy.Namespace, policy.Name = namespace, name
		in.Policies = append(in.Policies, policy)
	}
	return c.Resolve(ctx, in)
}

func marker(m *resolverv1.Marker) Marker {
	return Marker{
		Policy: m.GetPolicyNamespace() + "/" + m.GetPolicyName(),
		Field:  camel(strings.TrimPrefix(m.GetField().String(), "FIELD_")),
		File:   m.GetFile(),
		Line:   int(m.GetLine()),
		Col:    int(m.GetCol()),
		Value:  m.GetValue(),
	}
}

// camel turns an enum suffix such as POLICY_NOT_FOUND into PolicyNotFound.
func camel(s string) string {
	var b strings.Builder
	for _, word := range strings.Split(strings.ToLower(s), "_") {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String()
}
