//go:build tools

// Package tools pins the etcd server's main package so `go build` can resolve it.
package tools

import _ "go.etcd.io/etcd/server/v3"
