[package]
name = "k8s_deployment"
edition = "v0.9.0"
version = "0.1.0"

[dependencies]
k8s = "1.29"
