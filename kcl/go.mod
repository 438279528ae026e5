module github.com/kcl-lang/flux-kcl-controller/kcl

go 1.26.0

require go.yaml.in/yaml/v3 v3.0.5 // indirect
