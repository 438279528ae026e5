module github.com/kcl-lang/flux-kcl-controller

go 1.26.0

replace github.com/opencontainers/go-digest => github.com/opencontainers/go-digest v1.0.1-0.20220411205349-bde1400a84be
