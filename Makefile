# flux-kcl-controller: the entry points users and measurements rely on.
#   make demo   the quick start: real apiserver, source-controller, Git server (DEMO_EXIT=1 exits when done)
#   make test   every test, on the real parts (kube-apiserver, etcd, NATS, artifact server)
#   make build  bin/watcher bin/resolver bin/compiler bin/applier bin/flux-kcl-controller
#               (also as bin/kubectl-kcl, bin/kubectl_complete-kcl, bin/flux-kcl: kubectl kcl, flux kcl)
#   make kcl    bin/kcl, a `kcl run` look-alike over the project's KCL engine

SHELL := /usr/bin/env bash
CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/flux-kcl-controller
export FKC_CACHE := $(CACHE)
TOOLS := $(CACHE)/tools/bin
MODULES := . api kcl test/install
GO_PACKAGES := ./... $(patsubst %,./%/...,$(filter-out .,$(MODULES)))
SERVICES := watcher resolver compiler applier
# The CLI under the names kubectl and flux (RFC-0013) run plugins by: one program, hard links.
PLUGIN_NAMES := kubectl-kcl kubectl_complete-kcl flux-kcl

.PHONY: all setup build kcl test test-unit e2e demo proto generate lint vet fmt loadtest clean deploy images

all: build kcl

setup:
	@hack/setup.sh

build:
	@mkdir -p bin
	@start=$$SECONDS; \
	  for s in $(SERVICES); do go build -o bin/$$s ./services/$$s/cmd/$$s || exit 1; done; \
	  go build -o bin/flux-kcl-controller ./cmd/flux-kcl-controller || exit 1; \
	  for p in $(PLUGIN_NAMES); do ln -f bin/flux-kcl-controller bin/$$p || exit 1; done; \
	  echo "built bin/{$(shell echo $(SERVICES) | tr ' ' ','),flux-kcl-controller} and its plugin names bin/{$(shell echo $(PLUGIN_NAMES) | tr ' ' ',')} in $$((SECONDS - start))s"

kcl:
	@mkdir -p bin
	cd kcl && go build -o ../bin/kcl ./cmd/kcl

# The full suite. KUBEBUILDER_ASSETS points envtest at the cached real binaries.
test: setup
	KUBEBUILDER_ASSETS="$$(hack/envtest/build.sh)" KCL_DIFFTEST=required \
	  go test -p 2 -timeout 30m -count=1 $(GO_PACKAGES)
	@$(MAKE) --no-print-directory lint

# The end-to-end quick start alone: real source-controller (built once), local Git server,
# all-in-one controller. `make test` runs it too.
e2e: setup
	KUBEBUILDER_ASSETS="$$(hack/envtest/build.sh)" go test -p 1 -timeout 30m -count=1 -v ./test/e2e/

# Pure-logic tests only: no apiserver.
test-unit:
	go test -short -count=1 $(GO_PACKAGES)

demo: setup build
	@DEMO_EXIT=$(DEMO_EXIT) KUBEBUILDER_ASSETS="$$(hack/envtest/build.sh)" go run ./hack/demo

proto:
	PATH="$(TOOLS):$$PATH" hack/proto.sh

generate:
	cd api && $(TOOLS)/controller-gen object:headerFile=../hack/boilerplate.go.txt paths=./...
	cd api && $(TOOLS)/controller-gen crd:crdVersions=v1 paths=./... output:crd:artifacts:config=../deploy/crd
	cp deploy/crd/krm.kcl.dev.fluxcd_kclruns.yaml deploy/crd/krm.kcl.dev.fluxcd_imagerollouts.yaml charts/flux-kcl-controller/crds/

vet:
	go vet $(GO_PACKAGES)

fmt:
	gofmt -w $$(git ls-files '*.go')

# gofmt, and every module of go.work as `go mod tidy` leaves it.
lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@for m in $(MODULES); do \
	  (cd $$m && go mod tidy -diff >/dev/null) || { echo "go mod tidy needed in $$m (cd $$m && go mod tidy -diff)"; exit 1; }; \
	done
	@# Users build bin/kcl on their own machines, macOS among them; the engine has
	@# system-specific files (a stat's times).
	@cd kcl && GOOS=darwin GOARCH=arm64 go build -o /dev/null ./cmd/kcl || { echo "bin/kcl does not build for macOS"; exit 1; }

# The load driver side by side with Flux's kustomize-controller v1.9.6 (built once into the
# cache by hack/loadtest/build.sh, which setup runs). LOADTEST_N=20 runs one size instead of
# 100, 500 and 1,000; LOADTEST_ARGS passes driver flags (go run ./loadtest --help). Output:
# the table, loadtest/out/{report.json,first-sync.svg,latency.svg,logs/}.
loadtest: setup build
	KUBEBUILDER_ASSETS="$$(hack/envtest/build.sh)" LOADTEST_N="$(LOADTEST_N)" go run ./loadtest \
	  --kustomize-controller="$$(nice -n 19 hack/loadtest/build.sh)" \
	  --kustomize-crds="$$(hack/loadtest/crds.sh)" $(LOADTEST_ARGS)

# The five images without a Docker daemon (hack/images): linux/amd64 + linux/arm64, FROM
# scratch, user 65532. Pushed as $(KO_DOCKER_REPO)/<binary>:<tag> (or IMAGE_REGISTRY; tag:
# IMAGE_TAG or git describe, else dev); with no registry, an OCI layout in bin/images.
# IMAGES_ARGS passes more flags (go run ./hack/images --help).
images:
	go run ./hack/images $(IMAGES_ARGS)

# The split deployment with the Helm chart's defaults, into flux-system of the current kubectl
# context (test/install checks that deploy/default and the chart render the same objects).
deploy:
	kubectl apply -k deploy/default

clean:
	rm -rf bin
