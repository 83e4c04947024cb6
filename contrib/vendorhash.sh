#!/usr/bin/env bash
# Prints the vendorHash for flake.nix: the NAR hash of what buildGoModule's
# go-modules step produces (`go mod vendor`). Run it after every change to
# go.mod, go.sum or the set of imported packages, and paste the result into
# flake.nix; `go test ./flakecheck` fails until they agree. Works offline
# once the modules are in the Go module cache (`go mod download`).
# Uses `nix hash path` when nix is installed; otherwise the Go test computes the same hash
# and prints it in its failure message.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod vendor -o "$tmp/vendor"
if command -v nix >/dev/null; then
	nix --extra-experimental-features nix-command hash path --type sha256 "$tmp/vendor"
else
	go test -count=1 -run 'TestFlakeVendorHash$' -v ./flakecheck | sed -n 's/.*computed vendorHash: //p'
fi
