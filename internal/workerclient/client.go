package workerclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/durationpb"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	compilerv1 "github.com/kcl-lang/flux-kcl-controller/proto/compiler/v1"
	programv1 "github.com/kcl-lang/flux-kcl-controller/proto/program/v1"
	resolverv1 "github.com/kcl-lang/flux-kcl-controller/proto/resolver/v1"
)

// Client calls the compiler and resolver workers. It is safe for concurrent use.
type Client struct {
	compiler compilerv1.CompilerClient
	resolver resolverv1.ResolverClient
	closers  []func()
}

// Dial connects to the workers named in cfg. Connections are made lazily, so
// Dial succeeds before the workers are up; calls wait for a ready replica until
// their context ends.
func Dial(cfg Config) (*Client, error) {
	compilerConn, err := dial(cfg.CompilerAddr, cfg)
	if err != nil {
		return nil, fmt.Errorf("compiler: %w", err)
	}
	resolverConn, err := dial(cfg.ResolverAddr, cfg)
	if err != nil {
		_ = compilerConn.Close()
		return nil, fmt.Errorf("resolver: %w", err)
	}
	return &Client{
		compiler: compilerv1.NewCompilerClient(compilerConn),
		resolver: resolverv1.NewResolverClient(resolverConn),
		closers:  []func(){func() { _ = compilerConn.Close() }, func() { _ = resolverConn.Close() }},
	}, nil
}

// NewInProcess serves the two workers on in-memory listeners and connects to them:
// the all-in-one mode, the same gRPC code path without a port.
func NewInProcess(compiler, resolver Registrant) (*Client, error) {
	cfg := DefaultConfig()
	c, err := serveInProcess(compiler, cfg)
	if err != nil {
		return nil, fmt.Errorf("compiler: %w", err)
	}
	r, err := serveInProcess(resolver, cfg)
	if err != nil {
		c.close()
		return nil, fmt.Errorf("resolver: %w", err)
	}
	return &Client{
		compiler: compilerv1.NewCompilerClient(c.conn),
		resolver: resolverv1.NewResolverClient(r.conn),
		closers:  []func(){c.close, r.close},
	}, nil
}

// NewFromConns wraps connections the caller manages.
func NewFromConns(compiler, resolver grpc.ClientConnInterface) *Client {
	return &Client{compiler: compilerv1.NewCompilerClient(compiler), resolver: resolverv1.NewResolverClient(resolver)}
}

// Close releases the connections (and stops in-process servers).
func (c *Client) Close() error {
	for _, closeFn := range c.closers {
		closeFn()
	}
	return nil
}

// Artifact is a source's status.artifact, by reference.
type Artifact struct {
	URL      string
	Revision string
	Digest   string
}

// CompileConfig mirrors the kcl run flags of api/v1alpha1.ConfigSpec (the
// registry secret travels resolved, as CompileInput.RegistryCredentials).
type CompileConfig struct {
	Arguments     []string
	Settings      []string
	Overrides     []string
	PathSelectors []string
	Vendor        bool
	SortKeys      bool
	ShowHidden    bool
	DisableNone   bool
}

// Argument is a top-level argument from an argumentsReference; Sensitive (from a
// Secret) keeps the worker from logging it.
type Argument struct {
	Name      string
	Value     string
	Sensitive bool
}

// Substitution replaces the literal at [Start, End) of File (relative to the
// artifact root, inside the program path) before compiling.
type Substitution struct {
	File       string
	Start, End int64
	Old, New   string
}

// CompileInput is one compilation.
type CompileInput struct {
	Artifact      Artifact
	Path          string
	Config        CompileConfig
	Arguments     []Argument
	Substitutions []Substitution
	// Timeout and MaxOutputBytes ask for tighter limits than the worker's; zero
	// keeps the worker's.
	Timeout        time.Duration
	MaxOutputBytes int64
	// KCLRun ("namespace/name") labels the worker's logs.
	KCLRun string
	// RegistryCredentials is a Docker config JSON for the program's private KCL
	// packages, from the KCLRun's registrySecretRef. Never logged.
	RegistryCredentials []byte
}

// Compiled is a successful compilation.
type Compiled struct {
	Objects       []*unstructured.Unstructured
	CacheHit      bool
	EngineVersion string
	// OutputDigest identifies the objects ("sha256:..."), equal across replicas.
	OutputDigest string
	// Packages are the KCL packages the program's kcl.mod resolved to.
	Packages []Package
}

// Package is a resolved KCL package (kcl.mod dependency).
type Package struct {
	Name, Version, Source, Digest, Sum string
	Locked, Vendored                   bool
}

// Stages of a CompileError.
const (
	StageArtifact     = "Artifact"
	StageSubstitution = "Substitution"
	StageCompile      = "Compile"
	StageOutput       = "Output"
	StageTimeout      = "Timeout"
)

// CompileError is a failure to produce objects that is not the call's fault: the
// program, its artifact or its output. Retrying the same input gives the same
// error, except for StageArtifact and StageTimeout.
type CompileError struct {
	Stage   string
	Kind    string // the engine's kind ("CompileError", "EvaluationError"...) or the stage's
	Message string // free of secret argument values
	File    string // relative to the program path
	Line    int
	Col     int
}

func (e *CompileError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%s: %s", e.Kind, e.Message)
	}
	return fmt.Sprintf("%s: %s:%d:%d: %s", e.Kind, e.File, e.Line, e.Col, e.Message)
}

// IsArtifactError reports whether err is a CompileError of the artifact stage
// (download, digest, path), which Flux reports as ArtifactFailed.
func IsArtifactError(err error) bool {
	var ce *CompileError
	return errors.As(err, &ce) && ce.Stage == StageArtifact
}

// Compile runs a compilation on one of the compiler replicas. Errors are a
// *CompileError when the program or its artifact failed, or a wrapped gRPC status
// when the call itself failed (no replica answered within ctx...).
func (c *Client) Compile(ctx context.Context, in CompileInput) (*Compiled, error) {
	resp, err := c.compile(ctx, in)
	if err != nil {
		return nil, err
	}
	compiled := &Compiled{
		Objects:       make([]*unstructured.Unstructured, 0, len(resp.GetObjects())),
		CacheHit:      resp.GetCacheHit(),
		EngineVersion: resp.GetEngineVersion(),
		OutputDigest:  resp.GetOutputDigest(),
	}
	for _, p := range resp.GetPackages() {
		compiled.Packages = append(compiled.Packages, Package{Name: p.GetName(), Version: p.GetVersion(), Source: p.GetSource(),
			Digest: p.GetDigest(), Sum: p.GetSum(), Locked: p.GetLocked(), Vendored: p.GetVendored()})
	}
	for i, o := range resp.GetObjects() {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(o.GetJson()); err != nil {
			return nil, fmt.Errorf("object %d of the compiler's reply: %w", i, err)
		}
		compiled.Objects = append(compiled.Objects, u)
	}
	return compiled, nil
}

// CompileCount compiles like Compile but only counts the objects: a load
// generator measuring the workers need not pay for decoding their replies.
func (c *Client) CompileCount(ctx context.Context, in CompileInput) (int, error) {
	resp, err := c.compile(ctx, in)
	if err != nil {
		return 0, err
	}
	return len(resp.GetObjects()), nil
}

func (c *Client) compile(ctx context.Context, in CompileInput) (*compilerv1.CompileResponse, error) {
	req := &compilerv1.CompileRequest{
		Program: program(in.Artifact, in.Path),
		Config: &compilerv1.Config{
			Arguments:     in.Config.Arguments,
			Settings:      in.Config.Settings,
			Overrides:     in.Config.Overrides,
			PathSelectors: in.Config.PathSelectors,
			Vendor:        in.Config.Vendor,
			SortKeys:      in.Config.SortKeys,
			ShowHidden:    in.Config.ShowHidden,
			DisableNone:   in.Config.DisableNone,
		},
		Substitutions: substitutions(in.Substitutions),
		Limits:        &compilerv1.Limits{MaxOutputBytes: in.MaxOutputBytes},
		Kclrun:        in.KCLRun,
	}
	if len(in.RegistryCredentials) > 0 {
		req.RegistryCredentials = &compilerv1.RegistryCredentials{DockerConfigJson: in.RegistryCredentials}
	}
	if in.Timeout > 0 {
		req.Limits.Timeout = durationpb.New(in.Timeout)
	}
	for _, a := range in.Arguments {
		req.Arguments = append(req.Arguments, &compilerv1.Argument{Name: a.Name, Value: a.Value, Sensitive: a.Sensitive})
	}
	resp, err := c.compiler.Compile(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("calling the compiler: %w", err)
	}
	if e := resp.GetError(); e != nil {
		return nil, &CompileError{
			Stage:   stageName(e.GetStage()),
			Kind:    e.GetKind(),
			Message: e.GetMessage(),
			File:    e.GetFile(),
			Line:    int(e.GetLine()),
			Col:     int(e.GetCol()),
		}
	}
	return resp, nil
}

func stageName(s compilerv1.Error_Stage) string {
	switch s {
	case compilerv1.Error_STAGE_ARTIFACT:
		return StageArtifact
	case compilerv1.Error_STAGE_SUBSTITUTION:
		return StageSubstitution
	case compilerv1.Error_STAGE_COMPILE:
		return StageCompile
	case compilerv1.Error_STAGE_OUTPUT:
		return StageOutput
	case compilerv1.Error_STAGE_TIMEOUT:
		return StageTimeout
	default:
		return s.String()
	}
}

func program(a Artifact, path string) *programv1.Program {
	return &programv1.Program{
		Artifact: &programv1.ArtifactRef{Url: a.URL, Revision: a.Revision, Digest: a.Digest},
		Path:     path,
	}
}

func substitutions(subs []Substitution) []*programv1.Substitution {
	out := make([]*programv1.Substitution, 0, len(subs))
	for _, s := range subs {
		out = append(out, &programv1.Substitution{File: s.File, Start: s.Start, End: s.End, Old: s.Old, New: s.New})
	}
	return out
}
