module github.com/kcl-lang/flux-kcl-controller/kcl

go 1.26.0
