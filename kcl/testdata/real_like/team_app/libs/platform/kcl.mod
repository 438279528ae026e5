[package]
name = "platform"
version = "0.2.0"
