package imagepolicy

import (
	"context"
	"fmt"
	"sort"
)

// LatestRef is an ImagePolicy's status.latestRef.
type LatestRef struct {
	Name   string
	Tag    string
	Digest string
}

// Lookup reads an ImagePolicy's latestRef. found is false when the policy does not
// exist; a nil ref with found true means the policy has not elected an image yet.
type Lookup func(ctx context.Context, namespace, name string) (ref *LatestRef, found bool, err error)

// Hold reasons, as they appear on the KCLRun's condition.
const (
	ReasonPolicyNotFound        = "ImagePolicyNotFound"
	ReasonPolicyNotReady        = "ImagePolicyNotReady"
	ReasonRepositoryMismatch    = "ImagePolicyRepositoryMismatch"
	ReasonCrossNamespaceRefused = "ImagePolicyCrossNamespaceRefused"
	ReasonInvalidLatestRef      = "ImagePolicyInvalidLatestRef"
)

// Options of a resolution.
type Options struct {
	// Namespace of the KCLRun: the namespace of markers that name none.
	Namespace string
	// NoCrossNamespaceRefs refuses policies in other namespaces (Flux's lockdown flag).
	NoCrossNamespaceRefs bool
}

// Substitution replaces one marked literal.
type Substitution struct {
	Marker
	// PolicyKey is the policy as "namespace/name".
	PolicyKey string
	// New is the literal's new decoded value; Marker.Literal is the old one.
	New string
}

// Changed reports whether the substitution changes the program.
func (s Substitution) Changed() bool { return s.New != s.Literal }

// Hold stops a KCLRun from applying: nothing is applied with a stale or guessed image.
type Hold struct {
	PolicyKey string
	Location  string
	Reason    string
	Message   string
}

// Resolution is what a program's markers resolve to.
type Resolution struct {
	// Policies are the distinct policies referenced, "namespace/name", sorted.
	Policies      []string
	Substitutions []Substitution
	Holds         []Hold
}

// Resolve looks up the policy of every marker and computes the new literals. Errors
// are failures to read policies (transient); problems with policies are Holds.
func Resolve(ctx context.Context, markers []Marker, lookup Lookup, opts Options) (*Resolution, error) {
	res := &Resolution{}
	type cached struct {
		ref   *LatestRef
		found bool
	}
	seen := map[string]cached{}
	for _, m := range markers {
		ns := m.Policy.Namespace
		if ns == "" {
			ns = opts.Namespace
		}
		key := ns + "/" + m.Policy.Name
		hold := func(reason, format string, args ...any) {
			res.Holds = append(res.Holds, Hold{PolicyKey: key, Location: m.Location(), Reason: reason,
				Message: fmt.Sprintf("%s: image policy %s: ", m.Location(), key) + fmt.Sprintf(format, args...)})
		}
		if _, ok := seen[key]; !ok {
			res.Policies = append(res.Policies, key)
		}
		if opts.NoCrossNamespaceRefs && ns != opts.Namespace {
			hold(ReasonCrossNamespaceRefused, "cross-namespace references are not allowed")
			continue
		}
		c, ok := seen[key]
		if !ok {
			ref, found, err := lookup(ctx, ns, m.Policy.Name)
			if err != nil {
				return nil, fmt.Errorf("reading image policy %s: %w", key, err)
			}
			c = cached{ref: ref, found: found}
			seen[key] = c
		}
		switch {
		case !c.found:
			hold(ReasonPolicyNotFound, "not found")
			continue
		case c.ref == nil || (c.ref.Name == "" && c.ref.Tag == "" && c.ref.Digest == ""):
			hold(ReasonPolicyNotReady, "has no latestRef yet")
			continue
		}
		newValue, reason, msg := substitute(m, *c.ref)
		if reason != "" {
			hold(reason, "%s", msg)
			continue
		}
		res.Substitutions = append(res.Substitutions, Substitution{Marker: m, PolicyKey: key, New: newValue})
	}
	sort.Strings(res.Policies)
	return res, nil
}

// substitute computes a marker's new value, or the reason to hold.
func substitute(m Marker, latest LatestRef) (value, reason, msg string) {
	policyRepo := latest.Name
	if latest.Tag != "" && !referenceChars.MatchString(latest.Tag) ||
		latest.Digest != "" && !referenceChars.MatchString(latest.Digest) ||
		policyRepo != "" && !referenceChars.MatchString(policyRepo) {
		return "", ReasonInvalidLatestRef, fmt.Sprintf("latestRef %+v is not a valid image reference", latest)
	}
	mismatch := func(programRepo string) (string, string, string) {
		return "", ReasonRepositoryMismatch, fmt.Sprintf(
			"elects repository %s but the program pins %s; a policy may change the tag or digest, never the repository",
			policyRepo, programRepo)
	}
	switch m.Policy.Field {
	case FieldTag:
		if latest.Tag == "" {
			return "", ReasonPolicyNotReady, "latestRef has no tag"
		}
		return latest.Tag, "", ""
	case FieldDigest:
		if latest.Digest == "" {
			return "", ReasonPolicyNotReady, "latestRef has no digest"
		}
		return latest.Digest, "", ""
	case FieldName:
		if policyRepo != "" && !SameRepository(m.Literal, policyRepo) {
			return mismatch(m.Literal)
		}
		return m.Literal, "", ""
	}
	lit, err := ParseReference(m.Literal)
	if err != nil {
		return "", ReasonInvalidLatestRef, fmt.Sprintf("the marked literal: %v", err)
	}
	if policyRepo != "" && !SameRepository(lit.Repository, policyRepo) {
		return mismatch(lit.Repository)
	}
	if latest.Tag == "" && latest.Digest == "" {
		return "", ReasonPolicyNotReady, "latestRef has neither tag nor digest"
	}
	// The author's spelling of the repository is kept: it is theirs, and equal anyway.
	v := lit.Repository
	if latest.Tag != "" {
		v += ":" + latest.Tag
	}
	if latest.Digest != "" {
		v += "@" + latest.Digest
	}
	return v, "", ""
}
