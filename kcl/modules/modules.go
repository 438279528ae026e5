// Package modules holds KCL's system modules (yaml, json, base64, regex, math,
// units, net, file, datetime, crypto, runtime, template, collection, manifests).
package modules

import "github.com/kcl-lang/flux-kcl-controller/kcl/value"

var registry = map[string]func() *value.Module{}

// Load returns the system module name (e.g. "yaml"), or false if there is none.
func Load(name string) (*value.Module, bool) {
	mk, ok := registry[name]
	if !ok {
		return nil, false
	}
	return mk(), true
}

// IsSystem reports whether name is a system module.
func IsSystem(name string) bool {
	_, ok := registry[name]
	return ok
}
