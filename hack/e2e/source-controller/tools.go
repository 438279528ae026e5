//go:build tools

// Package tools pins source-controller's main package so `go build` can resolve it.
package tools

import _ "github.com/fluxcd/source-controller"
