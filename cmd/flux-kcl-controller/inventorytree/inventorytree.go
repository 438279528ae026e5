// Package inventorytree builds the tree of the objects a KCLRun applied (its
// status.inventory), following the Kustomizations, HelmReleases and KCLRuns among them into
// their own objects, as flux tree does. `flux-kcl-controller tree` prints it; the web view
// draws it with each object's health.
package inventorytree

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/object"
	ssautils "github.com/fluxcd/pkg/ssa/utils"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// Flux kinds whose own inventory the tree follows.
var (
	kustomizationKind = schema.GroupKind{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization"}
	helmReleaseKind   = schema.GroupKind{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease"}
	kclRunKind        = schema.GroupKind{Group: v1alpha1.GroupVersion.Group, Kind: v1alpha1.KCLRunKind}
)

// Node is one object of the tree.
type Node struct {
	ID object.ObjMetadata
	// Version is the API version the inventory recorded ("" for the objects of a Helm
	// release, whose storage does not say).
	Version  string
	Children []*Node
}

// Build reads the tree of run: the run at the root, its inventory below, and the objects of
// the Flux objects it applied below those.
func Build(ctx context.Context, c client.Client, run *v1alpha1.KCLRun) (*Node, error) {
	root := &Node{ID: object.ObjMetadata{Namespace: run.Namespace, Name: run.Name, GroupKind: kclRunKind}, Version: v1alpha1.GroupVersion.Version}
	seen := map[object.ObjMetadata]bool{root.ID: true}
	if err := addInventory(ctx, c, root, entriesOf(run.Status.Inventory), run.Spec.KubeConfig != nil, seen); err != nil {
		return nil, err
	}
	return root, nil
}

// Print draws the tree with flux's connectors: the root, then "├── " and "└── " lines.
func Print(w io.Writer, root *Node) error {
	var b strings.Builder
	b.WriteString(ssautils.FmtObjMetadata(root.ID) + "\n")
	printNodes(&b, root.Children, "")
	_, err := io.WriteString(w, b.String())
	return err
}

type entry struct{ id, version string }

func entriesOf(inv *v1alpha1.ResourceInventory) []entry {
	if inv == nil {
		return nil
	}
	out := make([]entry, 0, len(inv.Entries))
	for _, e := range inv.Entries {
		out = append(out, entry{id: e.ID, version: e.Version})
	}
	return out
}

// addInventory adds the entries under parent and follows the Flux objects among them,
// unless the parent applies to another cluster (its objects are not here to read).
func addInventory(ctx context.Context, c client.Client, parent *Node, entries []entry, remote bool, seen map[object.ObjMetadata]bool) error {
	for _, e := range entries {
		id, err := object.ParseObjMetadata(e.id)
		if err != nil {
			return fmt.Errorf("inventory entry %q: %w", e.id, err)
		}
		n := &Node{ID: id, Version: e.version}
		parent.Children = append(parent.Children, n)
		if remote || seen[id] {
			continue
		}
		seen[id] = true
		var children []entry
		var childRemote bool
		switch id.GroupKind {
		case kustomizationKind, kclRunKind:
			children, childRemote, err = fluxInventory(ctx, c, id, e.version)
		case helmReleaseKind:
			var objs []object.ObjMetadata
			objs, err = helmReleaseObjects(ctx, c, id, e.version)
			for _, o := range objs {
				n.Children = append(n.Children, &Node{ID: o})
			}
		}
		if err != nil {
			return err
		}
		if err := addInventory(ctx, c, n, children, childRemote, seen); err != nil {
			return err
		}
	}
	return nil
}

// fluxInventory reads status.inventory of a Kustomization or KCLRun (the same shape).
func fluxInventory(ctx context.Context, c client.Client, id object.ObjMetadata, version string) ([]entry, bool, error) {
	u, err := Get(ctx, c, id, version)
	if err != nil || u == nil {
		return nil, false, err
	}
	_, remote, _ := unstructured.NestedMap(u.Object, "spec", "kubeConfig")
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "inventory", "entries")
	var entries []entry
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		i, _ := m["id"].(string)
		v, _ := m["v"].(string)
		entries = append(entries, entry{id: i, version: v})
	}
	return entries, remote, nil
}

// helmReleaseObjects reads the manifest of a HelmRelease's latest release from Helm's
// storage Secret, as flux tree does.
func helmReleaseObjects(ctx context.Context, c client.Client, id object.ObjMetadata, version string) ([]object.ObjMetadata, error) {
	hr, err := Get(ctx, c, id, version)
	if err != nil || hr == nil {
		return nil, err
	}
	if _, remote, _ := unstructured.NestedMap(hr.Object, "spec", "kubeConfig"); remote {
		return nil, nil
	}
	storageNS, _, _ := unstructured.NestedString(hr.Object, "status", "storageNamespace")
	history, _, _ := unstructured.NestedSlice(hr.Object, "status", "history")
	if storageNS == "" || len(history) == 0 {
		return nil, nil
	}
	latest, _ := history[0].(map[string]any)
	relName, _ := latest["name"].(string)
	relVersion, _ := latest["version"].(int64)
	relNS, _ := latest["namespace"].(string)
	secret := &corev1.Secret{}
	key := types.NamespacedName{Namespace: storageNS, Name: fmt.Sprintf("sh.helm.release.v1.%s.v%d", relName, relVersion)}
	if err := c.Get(ctx, key, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the Helm storage of HelmRelease %s/%s: %w", id.Namespace, id.Name, err)
	}
	manifest, err := decodeHelmRelease(secret.Data["release"])
	if err != nil {
		return nil, fmt.Errorf("decoding the Helm storage of HelmRelease %s/%s: %w", id.Namespace, id.Name, err)
	}
	objects, err := ssautils.ReadObjects(strings.NewReader(manifest))
	if err != nil {
		return nil, fmt.Errorf("reading the manifest of HelmRelease %s/%s: %w", id.Namespace, id.Name, err)
	}
	var out []object.ObjMetadata
	for _, o := range objects {
		ns := o.GetNamespace()
		if ns == "" {
			ns = relNS
		}
		out = append(out, object.ObjMetadata{Namespace: ns, Name: o.GetName(), GroupKind: o.GroupVersionKind().GroupKind()})
	}
	return out, nil
}

// decodeHelmRelease is Helm's storage encoding: base64 of gzipped JSON.
func decodeHelmRelease(data []byte) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		return "", err
	}
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return "", err
		}
		if raw, err = io.ReadAll(zr); err != nil {
			return "", err
		}
	}
	var release struct {
		Manifest string `json:"manifest"`
	}
	if err := json.Unmarshal(raw, &release); err != nil {
		return "", err
	}
	return release.Manifest, nil
}

// Get reads an inventory object; one that is gone is nil, not an error.
func Get(ctx context.Context, c client.Reader, id object.ObjMetadata, version string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(id.GroupKind.WithVersion(version))
	if err := c.Get(ctx, types.NamespacedName{Namespace: id.Namespace, Name: id.Name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading %s %s/%s: %w", id.GroupKind.Kind, id.Namespace, id.Name, err)
	}
	return u, nil
}

func printNodes(b *strings.Builder, nodes []*Node, prefix string) {
	for i, n := range nodes {
		connector, next := "├── ", "│   "
		if i == len(nodes)-1 {
			connector, next = "└── ", "    "
		}
		b.WriteString(prefix + connector + ssautils.FmtObjMetadata(n.ID) + "\n")
		printNodes(b, n.Children, prefix+next)
	}
}
