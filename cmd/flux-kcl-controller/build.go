package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/internal/localbuild"
)

func runBuild(args []string) error {
	opts := localbuild.Options{Packages: localbuild.DefaultPackages()}
	var kubeconfig string
	fs := pflag.NewFlagSet("build", pflag.ContinueOnError)
	fs.StringArrayVar(&opts.PolicyFiles, "image-policy", nil, "A YAML file of ImagePolicy objects whose status.latestRef the markers follow (repeatable).")
	fs.StringArrayVarP(&opts.Arguments, "argument", "D", nil, "A top-level argument name=value, as kcl run -D (repeatable).")
	fs.StringVarP(&opts.Namespace, "namespace", "n", "default", "The KCLRun's namespace: markers without a namespace read their policy there.")
	fs.BoolVar(&opts.NoCrossNamespaceRefs, "no-cross-namespace-refs", false, "Refuse policies in other namespaces, as the controller flag does.")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "Read ImagePolicies not found in --image-policy files from this cluster.")
	fs.BoolVar(&opts.Vendor, "vendor", false, "Use the program's vendored KCL packages only, as spec.config.vendor; never touch the network.")
	fs.StringToStringVarP(&opts.External, "external", "E", nil, "A KCL package name=folder, as kcl run -E: wins over kcl.mod, never fetched (repeatable).")
	opts.Packages.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want exactly one program folder, got %d arguments", fs.NArg())
	}
	opts.Dir = fs.Arg(0)
	if kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return fmt.Errorf("loading kubeconfig: %w", err)
		}
		c, err := client.New(cfg, client.Options{})
		if err != nil {
			return fmt.Errorf("connecting to the cluster: %w", err)
		}
		opts.Cluster = c
	}
	return localbuild.Build(context.Background(), opts, os.Stdout, os.Stderr)
}
