package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// The names the one program answers to. As a kubectl plugin (kubectl-kcl on the PATH) kubectl
// runs it for `kubectl kcl …`, and kubectl_complete-kcl for the completion of `kubectl kcl`;
// as a Flux CLI plugin (flux-kcl in ~/.fluxcd/plugins or $FLUXCD_PLUGINS, RFC-0013) flux runs
// it for `flux kcl …` and `flux-kcl __complete …` for completion. The commands are the same;
// only what help calls the program changes.
const (
	programName       = "flux-kcl-controller"
	kubectlPlugin     = "kubectl-kcl"
	kubectlCompletion = "kubectl_complete-kcl"
	fluxPlugin        = "flux-kcl"
)

// Invocation is how the program was started.
type Invocation struct {
	// DisplayName is what help, usage and completion call the program: flux-kcl-controller,
	// "kubectl kcl" or "flux kcl".
	DisplayName string
	// Args are the arguments to execute: kubectl's completion helper gets cobra's __complete.
	Args []string
	// Plugin is true under kubectl or flux: the operator verbs only, not the server commands.
	Plugin bool
}

// Invoked reads argv: the program's file name says which of its names started it.
func Invoked(argv []string) Invocation {
	name := ""
	if len(argv) > 0 {
		// Either separator: a Windows path read here, or a Unix one there.
		name = argv[0][strings.LastIndexAny(argv[0], `/\`)+1:]
		name = strings.TrimSuffix(name, ".exe")
	}
	var args []string
	if len(argv) > 1 {
		args = argv[1:]
	}
	switch name {
	case kubectlPlugin:
		return Invocation{DisplayName: "kubectl kcl", Args: args, Plugin: true}
	case kubectlCompletion:
		return Invocation{DisplayName: "kubectl kcl", Args: append([]string{cobra.ShellCompRequestCmd}, args...), Plugin: true}
	case fluxPlugin:
		return Invocation{DisplayName: "flux kcl", Args: args, Plugin: true}
	default:
		return Invocation{DisplayName: programName, Args: args}
	}
}

// Name makes root's help, usage and examples call the program by the invocation's name.
func (inv Invocation) Name(root *cobra.Command) {
	if inv.DisplayName == programName {
		return
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = inv.DisplayName
	var rename func(*cobra.Command)
	rename = func(c *cobra.Command) {
		c.Example = strings.ReplaceAll(c.Example, programName+" ", inv.DisplayName+" ")
		c.Long = strings.ReplaceAll(c.Long, programName+" ", inv.DisplayName+" ")
		for _, sub := range c.Commands() {
			rename(sub)
		}
	}
	rename(root)
}
