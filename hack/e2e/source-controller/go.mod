// Pinned wrapper that builds the real Flux source-controller for the end-to-end suite.
// Built with GOWORK=off by hack/e2e/build.sh; not part of go.work.
module github.com/kcl-lang/flux-kcl-controller/hack/e2e/source-controller

go 1.26.0

require (
	github.com/fluxcd/source-controller v1.9.6
	github.com/fluxcd/source-controller/api v1.9.6
)

require github.com/fluxcd/pkg/artifact v0.18.3 // indirect

// The same non-local replace as source-controller's own go.mod.
replace github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20220411205349-bde1400a84be

// The v0.18.3 that source-controller v1.9.6 asks for cannot be had from the module proxy.
replace github.com/fluxcd/pkg/artifact => github.com/fluxcd/pkg/artifact v0.18.0
