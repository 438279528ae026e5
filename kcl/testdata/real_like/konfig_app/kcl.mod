[package]
name = "konfig_app"
version = "0.1.0"
