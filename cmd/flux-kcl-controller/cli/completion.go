package cli

import (
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// completeKCLRuns completes the names of the namespace's KCLRuns (cobra's `completion`
// command writes the bash, zsh, fish and PowerShell scripts that call it).
func (g *globals) completeKCLRuns(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return g.completeNames(v1alpha1.KCLRunKind, args, toComplete)
}

// completeImageRollouts completes the names of the namespace's ImageRollouts.
func (g *globals) completeImageRollouts(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return g.completeNames(v1alpha1.ImageRolloutKind, args, toComplete)
}

// completeNames completes the names of the namespace's objects of one of the project's
// kinds, reading only their metadata.
func (g *globals) completeNames(kind string, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	c, err := g.kubeClient()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	ctx, cancel := g.context()
	defer cancel()
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind(kind + "List"))
	if err := c.List(ctx, list, client.InNamespace(g.namespace())); err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var names []string
	for _, r := range list.Items {
		if strings.HasPrefix(r.Name, toComplete) && !contains(args, r.Name) {
			names = append(names, r.Name)
		}
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

func (g *globals) completeNamespaces(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	c, err := g.kubeClient()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	ctx, cancel := g.context()
	defer cancel()
	var list corev1.NamespaceList
	if err := c.List(ctx, &list); err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var names []string
	for _, ns := range list.Items {
		if strings.HasPrefix(ns.Name, toComplete) {
			names = append(names, ns.Name)
		}
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
