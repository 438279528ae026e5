// Package arguments reads the program arguments a KCLRun gives the compiler besides
// spec.config.arguments: spec.params and spec.argumentsReferences. The applier and the
// CLI's build/diff --kclrun both read them here.
package arguments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kcl-lang/flux-kcl-controller/api/v1alpha1"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// ParamsArgument is the option spec.params reaches the program as.
const ParamsArgument = "params"

// NotFoundError is a required ConfigMap or Secret that is missing, or a reference of an
// unsupported kind: the KCLRun waits for its inputs rather than failing the program.
type NotFoundError struct{ msg string }

func (e *NotFoundError) Error() string { return e.msg }

// Read reads spec.params and spec.argumentsReferences into program arguments, later
// references overriding earlier ones, sorted by name, and a digest of them for the
// applier's no-op check. Secret values are marked sensitive and never logged; only
// their digest leaves this function besides the arguments themselves.
func Read(ctx context.Context, c client.Reader, run *v1alpha1.KCLRun) ([]workerclient.Argument, string, error) {
	values := map[string]workerclient.Argument{}
	if len(run.Spec.Params) > 0 {
		// As the original controller: one argument, a JSON dict that the
		// engine parses as kcl -D does.
		params, err := json.Marshal(run.Spec.Params)
		if err != nil {
			return nil, "", fmt.Errorf("encoding spec.params: %w", err)
		}
		values[ParamsArgument] = workerclient.Argument{Name: ParamsArgument, Value: string(params)}
	}
	for _, ref := range run.Spec.ArgumentsReferences {
		name := types.NamespacedName{Namespace: run.Namespace, Name: ref.Name}
		var data map[string]string
		sensitive := false
		switch ref.Kind {
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, name, cm); err != nil {
				if apierrors.IsNotFound(err) && ref.Optional {
					continue
				}
				if apierrors.IsNotFound(err) {
					return nil, "", &NotFoundError{fmt.Sprintf("ConfigMap '%s' not found", name)}
				}
				return nil, "", fmt.Errorf("reading ConfigMap %s: %w", name, err)
			}
			data = cm.Data
		case "Secret":
			sec := &corev1.Secret{}
			if err := c.Get(ctx, name, sec); err != nil {
				if apierrors.IsNotFound(err) && ref.Optional {
					continue
				}
				if apierrors.IsNotFound(err) {
					return nil, "", &NotFoundError{fmt.Sprintf("Secret '%s' not found", name)}
				}
				return nil, "", fmt.Errorf("reading Secret %s: %w", name, err)
			}
			data = make(map[string]string, len(sec.Data))
			for k, v := range sec.Data {
				data[k] = string(v)
			}
			sensitive = true
		default:
			return nil, "", &NotFoundError{fmt.Sprintf("argument reference kind %q is not supported", ref.Kind)}
		}
		for k, v := range data {
			values[k] = workerclient.Argument{Name: k, Value: v, Sensitive: sensitive}
		}
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	h := sha256.New()
	args := make([]workerclient.Argument, 0, len(names))
	for _, k := range names {
		a := values[k]
		args = append(args, a)
		fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(a.Value), a.Value)
	}
	return args, hex.EncodeToString(h.Sum(nil)), nil
}
