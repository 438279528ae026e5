package localbuild

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	"github.com/google/go-containerregistry/pkg/authn"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
	programv1 "github.com/kcl-lang/flux-kcl-controller/proto/program/v1"
	"github.com/kcl-lang/flux-kcl-controller/services/compiler"
	"github.com/kcl-lang/flux-kcl-controller/services/resolver"
)

// RenderOptions are the inputs of one render, those a KCLRun gives the workers.
type RenderOptions struct {
	// Dir is the program folder (what spec.path names inside the artifact);
	// with Path, the artifact itself.
	Dir string
	// Path is the program folder inside Dir, as spec.path ("" for Dir itself).
	Path string
	// Namespace is the KCLRun's: markers without a namespace read their policy there.
	Namespace string
	// Config is spec.config: arguments, settings, overrides, path selectors, vendor,
	// sort keys, show hidden, disable none.
	Config *v1alpha1.ConfigSpec
	// Arguments are the resolved spec.argumentsReferences, after Config.Arguments.
	Arguments []workerclient.Argument
	// Policies finds the ImagePolicies the markers name.
	Policies workerclient.PolicyLookup
	// NoCrossNamespaceRefs refuses policies in other namespaces, as the controller flag does.
	NoCrossNamespaceRefs bool
	// Packages configure the download of kcl.mod dependencies; registries are logged in
	// with the user's Docker config, or RegistryCredentials when set.
	Packages kclpackage.Config
	// RegistryCredentials is a Docker config JSON (spec.config.registrySecretRef's).
	RegistryCredentials []byte
}

// Rendered is what the workers returned.
type Rendered struct {
	// Objects are the compiled objects, as the applier receives them.
	Objects []*unstructured.Unstructured
	// Images are the markers' substitutions, as status.images records them.
	Images []v1alpha1.ResolvedImage
	// Packages are the kcl.mod dependencies the program resolved to.
	Packages []workerclient.Package
}

// CompileError is a program that does not compile (or whose artifact is refused), located
// at file:line:col as the KCLRun's Ready message says.
type CompileError struct{ Message string }

func (e *CompileError) Error() string { return e.Message }

// Render runs the program through the controller's own resolver and compiler, in this
// process (the same gRPC code path as the all-in-one controller), with DIR standing for
// the artifact: the objects are those the applier would receive for the same KCLRun.
func Render(ctx context.Context, opts RenderOptions) (*Rendered, error) {
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	fetcher := dirFetcher{dir: opts.Dir}
	store, err := opts.Packages.Open(authn.DefaultKeychain)
	if err != nil {
		return nil, err
	}
	compilerCfg := compiler.DefaultConfig()
	compilerCfg.GRPCAddr, compilerCfg.MetricsAddr, compilerCfg.HealthAddr = "", "", ""
	compilerCfg.Concurrent, compilerCfg.ResultCacheBytes = 1, 0
	compilerCfg.Packages = opts.Packages
	compilerSvc, err := compiler.New(compilerCfg, compiler.Deps{Fetcher: fetcher, Packages: store, Logger: logr.Discard()})
	if err != nil {
		return nil, fmt.Errorf("compiler: %w", err)
	}
	resolverCfg := resolver.DefaultConfig()
	resolverCfg.GRPCAddr, resolverCfg.MetricsAddr, resolverCfg.HealthAddr = "", "", ""
	resolverSvc, err := resolver.New(resolverCfg, resolver.Deps{Fetcher: fetcher, Logger: logr.Discard()})
	if err != nil {
		return nil, fmt.Errorf("resolver: %w", err)
	}
	workers, err := workerclient.NewInProcess(compilerSvc, resolverSvc)
	if err != nil {
		return nil, fmt.Errorf("in-process workers: %w", err)
	}
	defer workers.Close()

	lookup := opts.Policies
	if lookup == nil {
		lookup = func(context.Context, string, string) (workerclient.ImagePolicy, error) {
			return workerclient.ImagePolicy{}, nil
		}
	}
	art := workerclient.Artifact{URL: "file://" + opts.Dir, Revision: "local", Digest: localDigest}
	path := opts.Path
	if path == "" {
		path = "."
	}
	resolved, err := workers.ResolveWithLookup(ctx, workerclient.ResolveInput{
		Artifact: art, Path: path, Namespace: opts.Namespace, NoCrossNamespaceRefs: opts.NoCrossNamespaceRefs,
		Settings: compileConfig(opts.Config).Settings,
	}, lookup)
	if err != nil {
		var re *workerclient.ResolveError
		if errors.As(err, &re) {
			return nil, &CompileError{Message: located(re.File, re.Line, re.Col, "", re.Message)}
		}
		return nil, err
	}
	if len(resolved.Holds) > 0 {
		holds := make([]imagepolicy.Hold, 0, len(resolved.Holds))
		for _, h := range resolved.Holds {
			holds = append(holds, imagepolicy.Hold{PolicyKey: h.Marker.Policy, Location: h.Marker.Location(), Reason: h.Reason, Message: h.Message})
		}
		return nil, &HoldError{Holds: holds}
	}
	compiled, err := workers.Compile(ctx, workerclient.CompileInput{
		Artifact:            art,
		Path:                path,
		Config:              compileConfig(opts.Config),
		Arguments:           opts.Arguments,
		Substitutions:       resolved.Substitutions(),
		RegistryCredentials: opts.RegistryCredentials,
	})
	if err != nil {
		var ce *workerclient.CompileError
		if errors.As(err, &ce) {
			return nil, &CompileError{Message: located(ce.File, ce.Line, ce.Col, ce.Kind, ce.Message)}
		}
		return nil, err
	}
	out := &Rendered{Objects: compiled.Objects, Packages: compiled.Packages}
	for _, r := range resolved.Resolutions {
		out.Images = append(out.Images, v1alpha1.ResolvedImage{
			Policy: r.Marker.Policy, Location: r.Marker.Location(), From: r.Marker.Value, To: r.Value,
		})
	}
	return out, nil
}

// localDigest stands for the artifact digest the workers require; each render has its
// own workers, so nothing is cached across programs.
const localDigest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// dirFetcher serves a local folder as the artifact, to both workers.
type dirFetcher struct{ dir string }

func (f dirFetcher) Open(context.Context, *programv1.ArtifactRef) (string, func(), error) {
	return f.dir, func() {}, nil
}

// compileConfig is spec.config as the compiler takes it (the applier's mapping).
func compileConfig(c *v1alpha1.ConfigSpec) workerclient.CompileConfig {
	if c == nil {
		return workerclient.CompileConfig{}
	}
	return workerclient.CompileConfig{
		Arguments: c.Arguments, Settings: c.Settings, Overrides: c.Overrides, PathSelectors: c.PathSelectors,
		Vendor: c.Vendor, SortKeys: c.SortKeys, ShowHidden: c.ShowHidden, DisableNone: c.DisableNone,
	}
}

// located formats "file:line:col: kind: message" as the KCLRun's Ready message does.
func located(file string, line, col int, kind, msg string) string {
	s := ""
	if file != "" {
		s = file
		if line > 0 {
			s += fmt.Sprintf(":%d", line)
			if col > 0 {
				s += fmt.Sprintf(":%d", col)
			}
		}
		s += ": "
	}
	if kind != "" {
		s += kind + ": "
	}
	return s + msg
}
