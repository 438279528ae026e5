package compiler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kcl-lang/flux-kcl-controller/internal/artifact"
	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/output"
	compilerv1 "github.com/kcl-lang/flux-kcl-controller/proto/compiler/v1"
)

// Error kinds of the stages other than STAGE_COMPILE (which carries the engine's kind).
const (
	KindFetchFailed          = artifact.KindFetchFailed
	KindDigestMismatch       = artifact.KindDigestMismatch
	KindArtifactNotFound     = artifact.KindNotFound
	KindArtifactTooLarge     = artifact.KindTooLarge
	KindArtifactUnsafe       = artifact.KindUnsafe
	KindPathNotFound         = artifact.KindPathNotFound
	KindSubstitutionMismatch = "SubstitutionMismatch"
	KindInvalidOutput        = "InvalidOutput"
	KindOutputTooLarge       = "OutputTooLarge"
	KindTimeout              = "Timeout"
	KindEngineFailure        = "EngineFailure"
	KindDependency           = "DependencyError"
	// KindPathRefused is a settings file, or an entry file one lists, outside the artifact.
	KindPathRefused = kcl.PathRefusedKind
)

// Kinds of *kcl.Error that are about the run's limits, not the program.
const (
	engineTimeoutKind = "TimeoutError"
	engineLimitKind   = "LimitError"
)

// Compile implements compilerv1.CompilerServer.
func (s *Service) Compile(ctx context.Context, req *compilerv1.CompileRequest) (*compilerv1.CompileResponse, error) {
	artifact := req.GetProgram().GetArtifact()
	if artifact.GetUrl() == "" || artifact.GetDigest() == "" {
		return nil, status.Error(codes.InvalidArgument, "program.artifact.url and program.artifact.digest are required")
	}
	programPath, err := cleanRelative(strings.TrimPrefix(req.GetProgram().GetPath(), "./"))
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "program.path %q: %v", req.GetProgram().GetPath(), err)
	}
	for _, a := range req.GetArguments() {
		if a.GetName() == "" {
			return nil, status.Error(codes.InvalidArgument, "arguments: a name is empty")
		}
	}
	log := s.log.WithValues("kclrun", req.GetKclrun(), "revision", artifact.GetRevision(), "path", programPath)

	key := cacheKey(req, programPath)
	if cached, ok := s.cache.get(key); ok {
		s.metrics.cache.WithLabelValues("hit").Inc()
		s.countError(cached)
		log.V(1).Info("compiled from cache", "objects", len(cached.GetObjects()))
		return &compilerv1.CompileResponse{
			Objects:       cached.GetObjects(),
			Error:         cached.GetError(),
			CacheHit:      true,
			EngineVersion: cached.GetEngineVersion(),
			OutputDigest:  cached.GetOutputDigest(),
			Packages:      cached.GetPackages(),
		}, nil
	}
	s.metrics.cache.WithLabelValues("miss").Inc()

	start := time.Now()
	resp, err := s.compileShared(ctx, key, req, programPath)
	if err != nil {
		return nil, err
	}
	s.countError(resp)
	if e := resp.GetError(); e != nil {
		log.Info("compilation failed", "stage", e.GetStage().String(), "kind", e.GetKind(),
			"location", location(e), "error", e.GetMessage(), "duration", time.Since(start))
	} else {
		log.V(1).Info("compiled", "objects", len(resp.GetObjects()), "duration", time.Since(start))
	}
	return resp, nil
}

// compileShared runs one compilation per key at a time: identical requests that
// arrive together (many KCLRuns of one program) wait for the first instead of
// compiling again. The shared run is detached from any one caller's
// cancellation and bounded by its own deadline; each caller still gives up
// when its own context ends.
func (s *Service) compileShared(ctx context.Context, key string, req *compilerv1.CompileRequest, programPath string) (*compilerv1.CompileResponse, error) {
	// Limits are not in the cache key, but a shared run applies its leader's.
	timeout, maxOutput := s.limits(req.GetLimits())
	flightKey := fmt.Sprintf("%s/%d/%d", key, timeout, maxOutput)
	results := s.inflight.DoChan(flightKey, func() (any, error) {
		sharedCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.CompileTimeout+sharedFetchAllowance)
		defer cancel()
		start := time.Now()
		resp, cacheable, err := s.compile(sharedCtx, req, programPath)
		if err != nil {
			return nil, err
		}
		s.metrics.duration.Observe(time.Since(start).Seconds())
		resp.EngineVersion = kcl.Version
		if cacheable {
			s.cache.put(key, resp)
		}
		return resp, nil
	})
	select {
	case r := <-results:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*compilerv1.CompileResponse), nil
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

// sharedFetchAllowance is the time a shared compilation may spend fetching the
// artifact and waiting for a slot, on top of the engine's own deadline.
const sharedFetchAllowance = 2 * time.Minute

func (s *Service) countError(resp *compilerv1.CompileResponse) {
	if e := resp.GetError(); e != nil {
		s.metrics.errors.WithLabelValues(e.GetKind()).Inc()
	}
}

// compile runs one uncached compilation. It reports whether the result is
// deterministic (worth caching); a non-nil error is an RPC failure.
func (s *Service) compile(ctx context.Context, req *compilerv1.CompileRequest, programPath string) (*compilerv1.CompileResponse, bool, error) {
	redact := newRedactor(sensitiveValues(req))

	root, release, err := s.fetcher.Open(ctx, req.GetProgram().GetArtifact())
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, false, status.FromContextError(ctxErr).Err()
		}
		return failure(compilerv1.Error_STAGE_ARTIFACT, artifact.KindOf(err), err.Error()), false, nil
	}
	defer release() // the artifact stays on disk until the engine is done with it
	programDir := filepath.Join(root, filepath.FromSlash(programPath))
	if info, err := os.Stat(programDir); err != nil || !info.IsDir() {
		return failure(compilerv1.Error_STAGE_ARTIFACT, KindPathNotFound,
			fmt.Sprintf("path %q is not a directory in the artifact of revision %s", programPath, req.GetProgram().GetArtifact().GetRevision())), true, nil
	}
	if f, missing := missingSettingsFile(root, programDir, req.GetConfig().GetSettings()); missing {
		return failure(compilerv1.Error_STAGE_ARTIFACT, KindPathNotFound,
			fmt.Sprintf("spec.config.settings: file %q is not in the artifact of revision %s", f, req.GetProgram().GetArtifact().GetRevision())), true, nil
	}
	creds, err := requestCredentials(req)
	if err != nil {
		return failure(compilerv1.Error_STAGE_COMPILE, KindRegistryCredentials, err.Error()), false, nil
	}
	packages, session, err := s.resolvePackages(ctx, root, programDir, req.GetConfig().GetSettings(), req.GetConfig().GetVendor(), creds)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, false, status.FromContextError(ctxErr).Err()
		}
		return packageFailure(err, func(msg string) string {
			return redact.redact(hidePaths(msg, root, programDir))
		}), false, nil
	}
	defer session.Release() // the packages stay on disk until the engine is done with them
	// A tag or a branch may move: only locked, vendored and local packages give
	// a result worth caching.
	reproducible := packages.Reproducible()
	pkgPaths := packagePaths(packages)
	overrides, err := applySubstitutions(root, programPath, req.GetSubstitutions())
	if err != nil {
		return failure(compilerv1.Error_STAGE_SUBSTITUTION, KindSubstitutionMismatch, err.Error()), true, nil
	}

	timeout, maxOutput := s.limits(req.GetLimits())
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, false, status.FromContextError(ctx.Err()).Err()
	}
	defer func() { <-s.slots }()

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cfg := req.GetConfig()
	result, err := runEngine(runCtx, kcl.Options{
		WorkDir:       programDir,
		Root:          root, // settings files may be anywhere in the artifact, never outside
		Arguments:     arguments(req),
		Settings:      cfg.GetSettings(),
		Overrides:     cfg.GetOverrides(),
		PathSelectors: cfg.GetPathSelectors(),
		FileOverrides: overrides,
		ExternalPkgs:  packages.ExternalPkgs(),
		SortKeys:      cfg.GetSortKeys(),
		ShowHidden:    cfg.GetShowHidden(),
		DisableNone:   cfg.GetDisableNone(),
		Limits:        kcl.Limits{Timeout: timeout, MaxOutputBytes: maxOutput},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, status.FromContextError(ctx.Err()).Err()
		}
		if runCtx.Err() != nil {
			return failure(compilerv1.Error_STAGE_TIMEOUT, KindTimeout,
				fmt.Sprintf("compilation did not finish within %s", timeout)), false, nil
		}
		var programErr *kcl.Error
		switch {
		case errors.As(err, &programErr) && programErr.Kind == engineTimeoutKind:
			return failure(compilerv1.Error_STAGE_TIMEOUT, KindTimeout,
				fmt.Sprintf("compilation did not finish within %s", timeout)), false, nil
		case errors.Is(err, output.ErrOutputTooLarge):
			return failure(compilerv1.Error_STAGE_OUTPUT, KindOutputTooLarge, redact.redact(err.Error())), false, nil
		case errors.As(err, &programErr) && programErr.Kind == kcl.PathRefusedKind:
			// Refused unread: the message names the setting, and the path is the tenant's own input.
			return failure(compilerv1.Error_STAGE_COMPILE, KindPathRefused,
				"spec.config.settings: "+redact.redact(hidePaths(programErr.Message, root, programDir))), true, nil
		case errors.As(err, &programErr):
			// A LimitError (values, output size, deadline) depends on the limits,
			// which the cache key leaves out: such results are not cached.
			return &compilerv1.CompileResponse{Error: &compilerv1.Error{
				Stage:   compilerv1.Error_STAGE_COMPILE,
				Kind:    programErr.Kind,
				Message: redact.redact(pkgPaths.Replace(hidePaths(programErr.Message, root, programDir))),
				File:    pkgPaths.Replace(hidePaths(programErr.File, root, programDir)),
				Line:    int32(programErr.Line),
				Col:     int32(programErr.Col),
			}, Packages: packageList(packages)}, reproducible && programErr.Kind != engineLimitKind, nil
		}
		return failure(compilerv1.Error_STAGE_COMPILE, KindEngineFailure, redact.redact(pkgPaths.Replace(hidePaths(err.Error(), root, programDir)))), false, nil
	}
	if int64(len(result.YAML)) > maxOutput {
		return failure(compilerv1.Error_STAGE_OUTPUT, KindOutputTooLarge,
			fmt.Sprintf("the output is %d bytes, more than the limit of %d", len(result.YAML), maxOutput)), false, nil
	}
	objects, err := splitObjects(result.YAML)
	if err != nil {
		return failure(compilerv1.Error_STAGE_OUTPUT, KindInvalidOutput, redact.redact(err.Error())), reproducible, nil
	}
	resp := &compilerv1.CompileResponse{Objects: make([]*compilerv1.Object, len(objects)), Packages: packageList(packages)}
	digest := sha256.New()
	for i, o := range objects {
		resp.Objects[i] = &compilerv1.Object{Json: o}
		writeInt(digest, int64(len(o)))
		digest.Write(o)
	}
	resp.OutputDigest = "sha256:" + hex.EncodeToString(digest.Sum(nil))
	return resp, reproducible, nil
}

// hidePaths rewrites the worker's absolute paths into the artifact, which mean
// nothing to users: program files become relative to the program directory,
// other files of the artifact (imported local packages) relative to its root.
func hidePaths(text, root, programDir string) string {
	text = strings.ReplaceAll(text, programDir+string(filepath.Separator), "")
	return strings.ReplaceAll(text, root+string(filepath.Separator), "")
}

// runEngine keeps a panic in the engine from taking the worker down.
func runEngine(ctx context.Context, opts kcl.Options) (result *kcl.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the KCL engine crashed: %v", r)
		}
	}()
	return kcl.Run(ctx, opts)
}

// limits are the request's limits capped by the worker's.
func (s *Service) limits(l *compilerv1.Limits) (time.Duration, int64) {
	timeout, maxOutput := s.cfg.CompileTimeout, s.cfg.MaxOutputBytes
	if d := l.GetTimeout().AsDuration(); d > 0 && d < timeout {
		timeout = d
	}
	if n := l.GetMaxOutputBytes(); n > 0 && n < maxOutput {
		maxOutput = n
	}
	return timeout, maxOutput
}

// arguments are config.arguments then the referenced ones, as kcl -D values.
func arguments(req *compilerv1.CompileRequest) []string {
	args := append([]string(nil), req.GetConfig().GetArguments()...)
	for _, a := range req.GetArguments() {
		args = append(args, a.GetName()+"="+a.GetValue())
	}
	return args
}

func sensitiveValues(req *compilerv1.CompileRequest) []string {
	var values []string
	for _, a := range req.GetArguments() {
		if a.GetSensitive() {
			values = append(values, a.GetValue())
		}
	}
	return values
}

func failure(stage compilerv1.Error_Stage, kind, message string) *compilerv1.CompileResponse {
	return &compilerv1.CompileResponse{Error: &compilerv1.Error{Stage: stage, Kind: kind, Message: message}}
}

func location(e *compilerv1.Error) string {
	if e.GetFile() == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", e.GetFile(), e.GetLine(), e.GetCol())
}
