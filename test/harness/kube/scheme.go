package kube

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kcl-lang/flux-kcl-controller/internal/kubescheme"
)

// Scheme returns a new scheme with the core Kubernetes types, CRDs, KCLRun, the Flux source
// v1 types and ImagePolicy v1.
func Scheme() *runtime.Scheme {
	s, err := kubescheme.New()
	utilruntime.Must(err)
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	return s
}
