// Package localbuild renders a KCL program on a workstation the way a KCLRun would:
// `$imagepolicy` markers resolved from ImagePolicy objects (YAML files, or the cluster),
// then compiled by the same engine. Users preview an image change with it before it lands.
package localbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/internal/imagepolicy"
	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
	"github.com/kcl-lang/flux-kcl-controller/kcl"
)

// Options of one build.
type Options struct {
	// Dir is the program folder, as spec.path names it inside an artifact.
	Dir string
	// PolicyFiles hold ImagePolicy objects (multi-document YAML).
	PolicyFiles []string
	// Cluster, when set, is read for ImagePolicies not found in PolicyFiles.
	Cluster client.Reader
	// Namespace stands for the KCLRun's namespace: markers without one read it.
	Namespace string
	// NoCrossNamespaceRefs refuses policies in other namespaces, as the controller flag does.
	NoCrossNamespaceRefs bool
	// Arguments are "name=value" top-level arguments (-D).
	Arguments []string
	// Vendor uses the program's vendored KCL packages only, as spec.config.vendor.
	Vendor bool
	// External maps package names to folders (kcl run -E name=path); they win
	// over kcl.mod and are never fetched. Relative folders are against the
	// working directory, as the CLI's.
	External map[string]string
	// Packages configure the download of kcl.mod dependencies (the compiler's
	// flags); registries are logged in with the user's Docker config.
	Packages kclpackage.Config
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

// Build writes the rendered manifests to out, and the image substitutions made to log.
func Build(ctx context.Context, opts Options, out, log io.Writer) error {
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	policies, err := readPolicyFiles(opts.PolicyFiles, opts.Namespace)
	if err != nil {
		return err
	}
	markers, err := imagepolicy.ScanProgram(os.DirFS(opts.Dir), ".")
	if err != nil {
		return err
	}
	lookup := func(ctx context.Context, ns, name string) (*imagepolicy.LatestRef, bool, error) {
		if ref, ok := policies[ns+"/"+name]; ok {
			return ref, true, nil
		}
		if opts.Cluster == nil {
			return nil, false, nil
		}
		return readClusterPolicy(ctx, opts.Cluster, ns, name)
	}
	res, err := imagepolicy.Resolve(ctx, markers, lookup, imagepolicy.Options{
		Namespace: opts.Namespace, NoCrossNamespaceRefs: opts.NoCrossNamespaceRefs,
	})
	if err != nil {
		return err
	}
	if len(res.Holds) > 0 {
		return &HoldError{Holds: res.Holds}
	}
	overrides, err := rewrite(opts.Dir, res.Substitutions)
	if err != nil {
		return err
	}
	for _, s := range res.Substitutions {
		if s.Changed() {
			fmt.Fprintf(log, "%s: %s → %s (policy %s)\n", s.Location(), s.Literal, s.New, s.PolicyKey)
		}
	}
	packages, release, err := resolvePackages(ctx, opts, log)
	if err != nil {
		return err
	}
	defer release()
	result, err := kcl.Run(ctx, kcl.Options{WorkDir: opts.Dir, Arguments: opts.Arguments, FileOverrides: overrides, ExternalPkgs: packages.ExternalPkgs()})
	if err != nil {
		return err
	}
	_, err = out.Write(result.YAML)
	return err
}

// rewrite applies the substitutions file by file, for kcl.Options.FileOverrides.
func rewrite(dir string, subs []imagepolicy.Substitution) (map[string][]byte, error) {
	byFile := map[string][]imagepolicy.Substitution{}
	for _, s := range subs {
		byFile[s.File] = append(byFile[s.File], s)
	}
	overrides := map[string][]byte{}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening program folder: %w", err)
	}
	defer root.Close()
	for file, fileSubs := range byFile {
		src, err := root.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
		if overrides[file], err = imagepolicy.Rewrite(src, fileSubs); err != nil {
			return nil, err
		}
	}
	return overrides, nil
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
