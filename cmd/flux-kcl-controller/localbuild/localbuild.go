// Package localbuild renders a KCL program on a workstation the way a KCLRun would:
// `$imagepolicy` markers resolved from ImagePolicy objects (YAML files, or the cluster),
// then resolved and compiled by the controller's own resolver and compiler services, run in
// this process. Users preview an image change with it before it lands.
package localbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	ssautils "github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// Options of one build.
type Options struct {
	// Dir is the program folder, as spec.path names it inside an artifact; with
	// Path, the artifact itself.
	Dir string
	// Path is the program folder inside Dir, as spec.path ("" for Dir itself):
	// settings files and the entry files they list may then lie anywhere in
	// Dir, never outside it, as in the controller.
	Path string
	// PolicyFiles hold ImagePolicy objects (multi-document YAML).
	PolicyFiles []string
	// Cluster, when set, is read for ImagePolicies not found in PolicyFiles.
	Cluster client.Reader
	// Run, with Cluster, is the KCLRun built for: an ImageRollout governing a
	// policy gives its markers the image of the KCLRun's stage.
	Run *v1alpha1.KCLRun
	// Namespace stands for the KCLRun's namespace: markers without one read it.
	Namespace string
	// NoCrossNamespaceRefs refuses policies in other namespaces, as the controller flag does.
	NoCrossNamespaceRefs bool
	// Arguments are "name=value" top-level arguments (-D), after Config.Arguments.
	Arguments []string
	// Vendor uses the program's vendored KCL packages only, as spec.config.vendor.
	Vendor bool
	// External maps package names to folders (kcl run -E name=path); they win
	// over kcl.mod and are never fetched. Relative folders are against the
	// working directory, as the CLI's. Such a build runs the engine directly (see
	// buildDirect): the controller has no -E.
	External map[string]string
	// Config is the rest of spec.config (settings, overrides, path selectors, sort keys,
	// show hidden, disable none); nil for none.
	Config *v1alpha1.ConfigSpec
	// ReferencedArguments are spec.argumentsReferences read from the cluster.
	ReferencedArguments []workerclient.Argument
	// Packages configure the download of kcl.mod dependencies (the compiler's
	// flags); registries are logged in with the user's Docker config.
	Packages kclpackage.Config
	// RegistryCredentials is spec.config.registrySecretRef's Docker config JSON.
	RegistryCredentials []byte
	// Prepare, when set, changes the objects as the applier would before applying them
	// (target namespace, common metadata, owner labels: see objectprep.Prepare).
	Prepare func([]*unstructured.Unstructured) error
}

// HoldError is a build held back by image policies: the message the status would carry.
type HoldError struct{ Holds []imagepolicy.Hold }

func (e *HoldError) Error() string {
	msgs := make([]string, 0, len(e.Holds))
	for _, h := range e.Holds {
		msgs = append(msgs, fmt.Sprintf("%s (%s)", h.Message, h.Reason))
	}
	return "held by image policies: " + strings.Join(msgs, "; ")
}

// Build writes the rendered objects to out as YAML documents, and the image
// substitutions and packages to log.
func Build(ctx context.Context, opts Options, out, log io.Writer) error {
	if len(opts.External) > 0 {
		if opts.Prepare != nil || len(opts.ReferencedArguments) > 0 {
			return errors.New("-E cannot be combined with a KCLRun's inputs: the controller reads given packages from a settings file's package_maps")
		}
		return buildDirect(ctx, opts, out, log)
	}
	objects, err := BuildObjects(ctx, opts, log)
	if err != nil {
		return err
	}
	yamlText, err := ssautils.ObjectsToYAML(objects)
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, strings.TrimSuffix(yamlText, "---\n"))
	return err
}

// BuildObjects renders the program and returns its objects, prepared as opts.Prepare says.
func BuildObjects(ctx context.Context, opts Options, log io.Writer) ([]*unstructured.Unstructured, error) {
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	policies, err := readPolicyFiles(opts.PolicyFiles, opts.Namespace)
	if err != nil {
		return nil, err
	}
	rollouts := map[string]*v1alpha1.KCLRunRollout{} // by policy
	lookup := func(ctx context.Context, ns, name string) (workerclient.ImagePolicy, error) {
		p := workerclient.ImagePolicy{Namespace: ns, Name: name}
		ref, found := policies[ns+"/"+name]
		if !found && opts.Cluster != nil {
			if ref, found, err = readClusterPolicy(ctx, opts.Cluster, ns, name); err != nil {
				return p, err
			}
		}
		p.Found = found
		if ref != nil {
			p.LatestRef = &workerclient.LatestRef{Name: ref.Name, Tag: ref.Tag, Digest: ref.Digest}
		}
		if opts.Run != nil && opts.Cluster != nil {
			given, err := followRollout(ctx, opts.Cluster, opts.Run, &p, opts.NoCrossNamespaceRefs)
			if err != nil {
				return p, err
			}
			if given != nil {
				rollouts[given.Policy] = given
			}
		}
		return p, nil
	}
	config := &v1alpha1.ConfigSpec{}
	if opts.Config != nil {
		config = opts.Config.DeepCopy()
	}
	config.Arguments = append(config.Arguments, opts.Arguments...)
	config.Vendor = config.Vendor || opts.Vendor
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(filepath.Join(dir, opts.Path)); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%s is not a program folder", filepath.Join(opts.Dir, opts.Path))
	}
	rendered, err := Render(ctx, RenderOptions{
		Dir: dir, Path: opts.Path, Namespace: opts.Namespace, Config: config, Arguments: opts.ReferencedArguments,
		Policies: lookup, NoCrossNamespaceRefs: opts.NoCrossNamespaceRefs,
		Packages: opts.Packages, RegistryCredentials: opts.RegistryCredentials,
	})
	if err != nil {
		return nil, err
	}
	for _, img := range rendered.Images {
		if img.From != img.To {
			fmt.Fprintf(log, "%s: %s → %s (policy %s)\n", img.Location, img.From, img.To, img.Policy)
		}
	}
	logHeld(log, rollouts)
	logPackages(log, rendered.Packages)
	if opts.Prepare != nil {
		if err := opts.Prepare(rendered.Objects); err != nil {
			return nil, err
		}
	}
	return rendered.Objects, nil
}

// readPolicyFiles indexes the ImagePolicies of YAML files by "namespace/name".
func readPolicyFiles(files []string, defaultNamespace string) (map[string]*imagepolicy.LatestRef, error) {
	policies := map[string]*imagepolicy.LatestRef{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("reading image policies: %w", err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var obj unstructured.Unstructured
			if err := dec.Decode(&obj.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if obj.GetKind() != "ImagePolicy" {
				continue
			}
			ns := obj.GetNamespace()
			if ns == "" {
				ns = defaultNamespace
			}
			policies[ns+"/"+obj.GetName()] = latestRefOf(&obj)
		}
	}
	return policies, nil
}

func readClusterPolicy(ctx context.Context, c client.Reader, ns, name string) (*imagepolicy.LatestRef, bool, error) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("image.toolkit.fluxcd.io/v1")
	obj.SetKind("ImagePolicy")
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("reading image policy %s/%s: %w", ns, name, err)
	}
	return latestRefOf(obj), true, nil
}

// latestRefOf reads status.latestRef; nil when the policy has elected nothing yet.
func latestRefOf(obj *unstructured.Unstructured) *imagepolicy.LatestRef {
	ref, found, _ := unstructured.NestedStringMap(obj.Object, "status", "latestRef")
	if !found {
		return nil
	}
	return &imagepolicy.LatestRef{Name: ref["name"], Tag: ref["tag"], Digest: ref["digest"]}
}
