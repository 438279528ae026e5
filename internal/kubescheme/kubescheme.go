// Package kubescheme is the one scheme of the kinds the services and the CLI read: the
// Kubernetes built-ins, KCLRun, Flux's sources and ImagePolicy.
package kubescheme

import (
	"fmt"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
)

// New returns a new scheme holding every kind the project reads.
func New() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, v1alpha1.AddToScheme, sourcev1.AddToScheme, imagev1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	return s, nil
}
