//go:build tools

// Package tools pins kustomize-controller's main package so `go build` can resolve it.
package tools

import _ "github.com/fluxcd/kustomize-controller"
