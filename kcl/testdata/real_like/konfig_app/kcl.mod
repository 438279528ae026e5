[package]
name = "konfig_app"
version = "0.1.0"

[profile]
entries = ["base/base.k", "prod/main.k", "models/render/render.k"]
