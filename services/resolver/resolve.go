package resolver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	fetch "github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/internal/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/kcl"
	programv1 "github.com/kcl-lang/flux-kcl-controller/proto/program/v1"
	resolverv1 "github.com/kcl-lang/flux-kcl-controller/proto/resolver/v1"
)

// scanned is a program's markers with the raw text of each marked literal
// (quotes included), so a cached scan answers without the artifact.
type scanned struct {
	markers []imagepolicy.Marker
	raw     []string
}

// Resolve implements resolverv1.ResolverServer.
func (s *Service) Resolve(ctx context.Context, req *resolverv1.ResolveRequest) (*resolverv1.ResolveResponse, error) {
	artifact := req.GetProgram().GetArtifact()
	if artifact.GetUrl() == "" || artifact.GetDigest() == "" {
		return nil, status.Error(codes.InvalidArgument, "program.artifact.url and program.artifact.digest are required")
	}
	if req.GetNamespace() == "" {
		return nil, status.Error(codes.InvalidArgument, "namespace is required")
	}
	programPath, err := cleanRelative(strings.TrimPrefix(req.GetProgram().GetPath(), "./"))
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "program.path %q: %v", req.GetProgram().GetPath(), err)
	}
	log := s.log.WithValues("namespace", req.GetNamespace(), "revision", artifact.GetRevision(), "path", programPath)

	prog, scanErr, err := s.scan(ctx, artifact, programPath, req.GetSettings())
	if err != nil {
		return nil, err
	}
	if scanErr != nil {
		s.requests.WithLabelValues("error").Inc()
		log.Info("program not scanned", "stage", scanErr.GetStage().String(), "error", scanErr.GetMessage())
		return &resolverv1.ResolveResponse{Error: scanErr}, nil
	}
	resp, err := resolve(ctx, prog, req)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "resolving markers: %v", err)
	}
	switch {
	case len(resp.GetMissing()) > 0:
		s.requests.WithLabelValues("missing").Inc()
	case len(resp.GetHeld()) > 0:
		s.requests.WithLabelValues("held").Inc()
	default:
		s.requests.WithLabelValues("resolved").Inc()
	}
	log.V(1).Info("resolved", "markers", len(prog.markers), "resolved", len(resp.GetResolved()),
		"held", len(resp.GetHeld()), "missing", len(resp.GetMissing()))
	return resp, nil
}

// scan returns the program's markers, from the cache or the artifact. A non-nil
// *resolverv1.Error is a failure to report in the response; error is an RPC failure.
func (s *Service) scan(ctx context.Context, artifact *programv1.ArtifactRef, programPath string, settings []string) (*scanned, *resolverv1.Error, error) {
	key := artifact.GetDigest() + "\x00" + programPath + "\x00" + strings.Join(settings, "\x00")
	if prog, ok := s.scans.get(key); ok {
		return prog, nil, nil
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, status.FromContextError(ctx.Err()).Err()
	}
	defer func() { <-s.slots }()

	root, release, err := s.fetcher.Open(ctx, artifact)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, status.FromContextError(ctx.Err()).Err()
		}
		return nil, &resolverv1.Error{Stage: resolverv1.Error_STAGE_ARTIFACT, Kind: fetch.KindOf(err), Message: err.Error()}, nil
	}
	defer release()
	if info, err := os.Stat(filepath.Join(root, filepath.FromSlash(programPath))); err != nil || !info.IsDir() {
		return nil, &resolverv1.Error{Stage: resolverv1.Error_STAGE_ARTIFACT, Kind: fetch.KindPathNotFound,
			Message: fmt.Sprintf("path %q is not a directory in the artifact of revision %s", programPath, artifact.GetRevision())}, nil
	}
	fsys := os.DirFS(root)
	markers, err := imagepolicy.ScanEntries(fsys, programPath, settingsEntries(root, programPath, settings))
	if err != nil {
		scanErr := &resolverv1.Error{Stage: resolverv1.Error_STAGE_SCAN, Message: err.Error()}
		var me *imagepolicy.MarkerError
		if errors.As(err, &me) {
			scanErr.Message, scanErr.File, scanErr.Line, scanErr.Col = me.Msg, me.File, int32(me.Line), int32(me.Col)
		}
		return nil, scanErr, nil
	}
	prog := &scanned{markers: markers, raw: make([]string, len(markers))}
	files := map[string][]byte{}
	for i, m := range markers {
		src, ok := files[m.File]
		if !ok {
			if src, err = fs.ReadFile(fsys, m.File); err != nil {
				return nil, &resolverv1.Error{Stage: resolverv1.Error_STAGE_SCAN, Message: err.Error(), File: m.File}, nil
			}
			files[m.File] = src
		}
		if m.Start < 0 || m.End > len(src) || m.Start >= m.End {
			return nil, nil, status.Errorf(codes.Internal, "%s: marker span %d..%d outside the file", m.Location(), m.Start, m.End)
		}
		prog.raw[i] = string(src[m.Start:m.End])
	}
	s.scans.put(key, prog)
	return prog, nil, nil
}

// settingsEntries are the entry files the settings list, relative to the
// artifact root and slash-separated, as the compiler reads them: relative to
// the program's folder, ${KCL_MOD} the nearest kcl.mod above it. A settings
// file that cannot be read, or an entry outside the artifact, is the
// compiler's to report.
func settingsEntries(root, programPath string, settings []string) []string {
	if len(settings) == 0 {
		return nil
	}
	programDir := filepath.Join(root, filepath.FromSlash(programPath))
	listed, _, err := kcl.SettingsEntries(root, programDir, settings)
	if err != nil {
		return nil
	}
	kclMod := programDir
	for d := programDir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "kcl.mod")); err == nil {
			kclMod = d
			break
		}
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	var out []string
	for _, f := range listed {
		f = strings.ReplaceAll(f, "${KCL_MOD}", kclMod)
		if !filepath.IsAbs(f) {
			f = filepath.Join(programDir, f)
		}
		if rel, err := filepath.Rel(root, f); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// resolve turns markers and the caller's policies into the response.
func resolve(ctx context.Context, prog *scanned, req *resolverv1.ResolveRequest) (*resolverv1.ResolveResponse, error) {
	supplied := map[string]*resolverv1.ImagePolicy{}
	for _, p := range req.GetPolicies() {
		supplied[p.GetNamespace()+"/"+p.GetName()] = p
	}
	missing := map[string]bool{}
	lookup := func(_ context.Context, namespace, name string) (*imagepolicy.LatestRef, bool, error) {
		key := namespace + "/" + name
		p, ok := supplied[key]
		switch {
		case !ok:
			missing[key] = true
			return nil, true, nil // held below as not supplied
		case !p.GetFound():
			return nil, false, nil
		case p.GetLatestRef() == nil:
			return nil, true, nil
		}
		ref := p.GetLatestRef()
		return &imagepolicy.LatestRef{Name: ref.GetName(), Tag: ref.GetTag(), Digest: ref.GetDigest()}, true, nil
	}
	res, err := imagepolicy.Resolve(ctx, prog.markers, lookup, imagepolicy.Options{
		Namespace:            req.GetNamespace(),
		NoCrossNamespaceRefs: req.GetNoCrossNamespaceRefs(),
	})
	if err != nil {
		return nil, err
	}

	type markerKey struct{ location, policy string }
	index := map[markerKey]int{}
	for i, m := range prog.markers {
		k := markerKey{m.Location(), policyKey(m, req.GetNamespace())}
		if _, ok := index[k]; !ok {
			index[k] = i
		}
	}
	resp := &resolverv1.ResolveResponse{Policies: res.Policies}
	for _, sub := range res.Substitutions {
		i := index[markerKey{sub.Location(), sub.PolicyKey}]
		newText, err := imagepolicy.Rewrite([]byte(prog.raw[i]), []imagepolicy.Substitution{{
			Marker: withSpan(sub.Marker, 0, len(prog.raw[i])), PolicyKey: sub.PolicyKey, New: sub.New,
		}})
		if err != nil {
			return nil, err
		}
		resp.Resolved = append(resp.Resolved, &resolverv1.Resolution{
			Marker: protoMarker(sub.Marker, req.GetNamespace()),
			Value:  sub.New,
			Substitution: &programv1.Substitution{
				File: sub.File, Start: int64(sub.Start), End: int64(sub.End), Old: prog.raw[i], New: string(newText),
			},
		})
	}
	for _, h := range res.Holds {
		hold := &resolverv1.Hold{Reason: holdReason(h.Reason), Message: h.Message}
		if i, ok := index[markerKey{h.Location, h.PolicyKey}]; ok {
			hold.Marker = protoMarker(prog.markers[i], req.GetNamespace())
		}
		if missing[h.PolicyKey] {
			hold.Reason = resolverv1.Hold_REASON_POLICY_NOT_SUPPLIED
			hold.Message = fmt.Sprintf("%s: image policy %s: not passed by the caller", h.Location, h.PolicyKey)
		}
		resp.Held = append(resp.Held, hold)
	}
	for key := range missing {
		resp.Missing = append(resp.Missing, key)
	}
	sort.Strings(resp.Missing)
	return resp, nil
}

func withSpan(m imagepolicy.Marker, start, end int) imagepolicy.Marker {
	m.Start, m.End = start, end
	return m
}

func policyKey(m imagepolicy.Marker, namespace string) string {
	if m.Policy.Namespace != "" {
		namespace = m.Policy.Namespace
	}
	return namespace + "/" + m.Policy.Name
}

func protoMarker(m imagepolicy.Marker, namespace string) *resolverv1.Marker {
	ns := m.Policy.Namespace
	if ns == "" {
		ns = namespace
	}
	field := resolverv1.Marker_FIELD_IMAGE
	switch m.Policy.Field {
	case imagepolicy.FieldName:
		field = resolverv1.Marker_FIELD_NAME
	case imagepolicy.FieldTag:
		field = resolverv1.Marker_FIELD_TAG
	case imagepolicy.FieldDigest:
		field = resolverv1.Marker_FIELD_DIGEST
	}
	return &resolverv1.Marker{
		PolicyNamespace: ns, PolicyName: m.Policy.Name, Field: field,
		File: m.File, Line: int32(m.Line), Col: int32(m.Col),
		Start: int64(m.Start), End: int64(m.End), Value: m.Literal,
	}
}

func holdReason(reason string) resolverv1.Hold_Reason {
	switch reason {
	case imagepolicy.ReasonPolicyNotFound:
		return resolverv1.Hold_REASON_POLICY_NOT_FOUND
	case imagepolicy.ReasonPolicyNotReady:
		return resolverv1.Hold_REASON_POLICY_NOT_READY
	case imagepolicy.ReasonCrossNamespaceRefused:
		return resolverv1.Hold_REASON_CROSS_NAMESPACE
	case imagepolicy.ReasonRepositoryMismatch:
		return resolverv1.Hold_REASON_REPOSITORY_MISMATCH
	case imagepolicy.ReasonInvalidLatestRef:
		return resolverv1.Hold_REASON_INVALID_LATEST_REF
	default:
		return resolverv1.Hold_REASON_UNSPECIFIED
	}
}

// cleanRelative validates a slash-separated path that must stay inside its root.
func cleanRelative(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if strings.Contains(p, "\\") || path.IsAbs(p) || filepath.IsAbs(p) {
		return "", fmt.Errorf("must be a relative slash-separated path")
	}
	cleaned := path.Clean(p)
	if cleaned == ".." || strings.HasPrefix(cleaned, "../") {
		return "", fmt.Errorf("escapes the root")
	}
	return cleaned, nil
}
