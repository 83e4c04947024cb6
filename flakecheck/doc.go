// Package flakecheck has no code: its tests check flake.nix from outside
// package main, so the slow ones (vendoring every module to compare the
// Nix vendorHash, with a Nix archive hasher) stay out of the CLI's tests.
// They skip under -short, without nix-instantiate, and when the Go module
// cache lacks modules of go.mod (`go mod download` fills it). The
// home-manager module's options are checked against the real flags in
// package main (flake_module_test.go).
package flakecheck
