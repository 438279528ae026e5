// Package builtins holds KCL's builtin functions (print, len, sorted, ...) and the
// methods of strings.
package builtins

import "github.com/kcl-lang/flux-kcl-controller/kcl/value"

// Universe maps each builtin name to its value.
var Universe = map[string]value.Value{}
