#!/usr/bin/env bash
# Builds herdr from the source archive in ../shared/real-herdr into a cache
# outside the clone and prints the binary's path on stdout (progress goes to
# stderr). The cache is keyed by the archive's SHA-256, so a second run with
# the same archive prints the path at once.
#
#   integration/realherdr/build.sh [--cached] [ARCHIVE]
#
# --cached prints the path only if that binary is already built, and exits 3
# (printing nothing) if it is not: tests use it to find the binary without
# building.
#
# Environment:
#   HERDR_SOURCE_DIR        folder holding the archives (default ../shared/real-herdr)
#   HERDRTABRENAMER_CACHE   cache root (default ${XDG_CACHE_HOME:-~/.cache}/herdrtabrenamer)
#
# It installs Zig from PyPI's ziglang (pinned) into a virtualenv in the cache,
# lays the one Zig package libghostty-vt needs (uucode, from the archive
# beside herdr's) into a package folder, and builds with cargo --locked.
# Nothing but registry packages is downloaded: ghostty's own build.zig
# configures every artifact of the terminal app, and so asks for about
# twenty packages (fonts, freetype, GTK bindings...) that only its download
# hosts have. The extracted copy gets a build.zig that configures the static
# libghostty-vt alone, which is all herdr links, and Zig runs in --system
# mode (no fetching, system zlib for a generator libghostty-vt never runs)
# with SIMD off (its simdutf and highway sources are downloads too).
set -euo pipefail

ZIGLANG_VERSION=0.15.2
UUCODE_HASH=uucode-0.2.0-ZZjBPqZVVABQepOqZHR7vV_NcaN-wats0IB6o-Exj6m9

cached_only=false
if [ "${1:-}" = --cached ]; then
	cached_only=true
	shift
fi

here=$(cd "$(dirname "$0")" && pwd)
src_dir=${HERDR_SOURCE_DIR:-$(cd "$here/../../.." && pwd)/shared/real-herdr}
archive=${1:-$src_dir/herdr-0.8.2.tar.gz}
uucode=$src_dir/uucode-0.2.0.tar.gz
cache=${HERDRTABRENAMER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/herdrtabrenamer}

log() { echo "build-herdr: $*" >&2; }
die() { echo "build-herdr: $*" >&2; exit 1; }

[ -f "$archive" ] || die "no herdr source archive at $archive (set HERDR_SOURCE_DIR)"
sum=$(sha256sum "$archive" | cut -d' ' -f1)
out=$cache/real-herdr/$sum
if [ -x "$out/herdr" ]; then
	echo "$out/herdr"
	exit 0
fi
$cached_only && exit 3

[ -f "$uucode" ] || die "no uucode archive at $uucode (set HERDR_SOURCE_DIR)"
command -v cargo >/dev/null || die "cargo is not on PATH: install Rust (rustup or Debian's cargo) to build herdr"
command -v python3 >/dev/null || die "python3 is not on PATH: it installs Zig from PyPI's ziglang"
mkdir -p "$cache/real-herdr"
# One build at a time per cache: concurrent test processes may all ask.
exec 9>"$cache/real-herdr/.lock"
flock 9
if [ -x "$out/herdr" ]; then
	echo "$out/herdr"
	exit 0
fi

venv=$cache/real-herdr/ziglang-$ZIGLANG_VERSION
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m ziglang version >/dev/null 2>&1; then
	log "installing ziglang==$ZIGLANG_VERSION from PyPI into $venv"
	rm -rf "$venv"
	python3 -m venv "$venv"
	"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "ziglang==$ZIGLANG_VERSION"
fi
zig=$(ls "$venv"/lib/python*/site-packages/ziglang/zig 2>/dev/null | head -n1)
[ -x "$zig" ] || die "ziglang installed but no zig binary under $venv"
got=$("$zig" version)
[ "$got" = "$ZIGLANG_VERSION" ] || die "zig says version $got, want $ZIGLANG_VERSION"

zig_pkgs=$cache/real-herdr/zig-packages
if [ ! -f "$zig_pkgs/$UUCODE_HASH/build.zig.zon" ]; then
	log "laying uucode into Zig's package folder"
	rm -rf "$zig_pkgs/$UUCODE_HASH"
	mkdir -p "$zig_pkgs/$UUCODE_HASH"
	tar -xzf "$uucode" -C "$zig_pkgs/$UUCODE_HASH" --strip-components=1
fi

work=$cache/real-herdr/src-$sum
rm -rf "$work"
mkdir -p "$work"
tar -xzf "$archive" -C "$work" --strip-components=1
# The archive pins a Rust toolchain these machines cannot fetch; the
# installed one builds it (edition 2021, no nightly features).
rm -f "$work/rust-toolchain.toml" "$work/rust-toolchain"
cat >"$work/vendor/libghostty-vt/build.zig" <<'ZIG'
// Written by herdrtabrenamer's integration/realherdr/build.sh: configures
// the static libghostty-vt only, so that no other package is asked for.
const std = @import("std");
const buildpkg = @import("src/build/main.zig");

pub fn build(b: *std.Build) !void {
    const raw = try b.build_root.handle.readFileAlloc(b.allocator, "VERSION", 128);
    const version = std.mem.trim(u8, raw, &std.ascii.whitespace);
    const config = try buildpkg.Config.init(b, version, "0.1.0-dev");
    const deps = try buildpkg.SharedDeps.init(b, &config);
    const mod = try buildpkg.GhosttyZig.init(b, &config, &deps);
    const static = try buildpkg.GhosttyLibVt.initStatic(b, &mod);
    b.getInstallStep().dependOn(&b.addInstallLibFile(static.output, "libghostty-vt.a").step);
}
ZIG

log "cargo build --release --locked (several minutes on a first build)"
start=$(date +%s)
(
	cd "$work"
	ZIG="$zig" LIBGHOSTTY_VT_ZIG_SYSTEM_DIR="$zig_pkgs" LIBGHOSTTY_VT_SIMD=false \
		ZIG_GLOBAL_CACHE_DIR="$cache/real-herdr/zig-global" \
		CARGO_TARGET_DIR="$cache/real-herdr/target" \
		cargo build --release --locked --bin herdr >&2
)
log "built in $(( $(date +%s) - start )) s"
mkdir -p "$out.tmp"
cp "$cache/real-herdr/target/release/herdr" "$out.tmp/herdr"
rm -rf "$out"
mv "$out.tmp" "$out"
rm -rf "$work"
echo "$out/herdr"
