//go:build tools

// Package tools pins k8s.io/kubernetes/cmd/kube-apiserver so `go build` can resolve it.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
