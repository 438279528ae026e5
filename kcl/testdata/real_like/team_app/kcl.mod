[package]
name = "team_app"
version = "0.1.0"

[dependencies]
platform = { path = "libs/platform" }
