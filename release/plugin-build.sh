#!/bin/sh
# The herdr plugin's [[build]] step: herdr runs `sh release/plugin-build.sh`
# (no shell around it) in its checkout of this repository and expects the
# binary at bin/herdrtabrenamer.
#
# With a Go at least as new as go.mod's on PATH it builds this checkout.
# Otherwise it downloads this version's release archive for the platform
# and installs its binary only when the archive's SHA-256 is the one
# release/SHA256SUMS lists for it. That file is committed beside this
# script and the release builds are reproducible, so a swapped or damaged
# file on the release page is refused.
#
# HERDRTABRENAMER_RELEASE_BASE      where the archives are (a mirror, a test
#                                   server); default: this version's release
# HERDRTABRENAMER_DOWNLOAD_TIMEOUT  seconds the download may take in all (120)
# HERDRTABRENAMER_DOWNLOAD_MAX      bytes the download may bring (64 MiB)
#
# Every failure is one line on stderr saying what failed, where, and what
# to do next.
set -eu

repo=https://github.com/herdrtabrenamer/herdrtabrenamer
sums=release/SHA256SUMS
bin=bin/herdrtabrenamer

fail() {
	printf 'herdrtabrenamer build: %s\n' "$*" >&2
	exit 1
}

# oneline joins a tool's message into one line.
oneline() {
	printf '%s' "$1" | tr '\n' ' '
}

if [ ! -f herdr-plugin.toml ] || [ ! -f go.mod ]; then
	fail "run in the plugin's checkout ($PWD has no herdr-plugin.toml or go.mod): reinstall with herdr plugin install herdrtabrenamer/herdrtabrenamer"
fi
version=$(sed -n 's/^version = "\([0-9][0-9.]*\)"$/\1/p' herdr-plugin.toml)
gomod=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' go.mod)
if [ -z "$version" ] || [ -z "$gomod" ]; then
	fail "no version in $PWD/herdr-plugin.toml or no go line in $PWD/go.mod: reinstall with herdr plugin install herdrtabrenamer/herdrtabrenamer"
fi
release_page="$repo/releases/tag/v$version"
hint="install Go $gomod or newer and install the plugin again, or install herdrtabrenamer as README's Install section says ($repo#install)"

# at_least A B: whether dotted version A is B or newer. A Go pre-release
# (1.27rc1) counts as its release; go build then decides.
at_least() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		na = split(a, x, "."); nb = split(b, y, ".")
		for (i = 1; i <= (na > nb ? na : nb); i++) {
			p = x[i] + 0; q = y[i] + 0
			if (p != q) exit !(p > q)
		}
		exit 0
	}'
}

# local_go: whether the go on PATH is new enough, asked without letting it
# fetch another toolchain.
local_go() {
	command -v go >/dev/null 2>&1 || return 1
	v=$(GOTOOLCHAIN=local go version 2>/dev/null) || return 1
	v=${v#go version go}
	at_least "${v%% *}" "$gomod"
}

if local_go; then
	echo "herdrtabrenamer build: building with $(GOTOOLCHAIN=local go version)"
	if go build -o "$bin" .; then
		exit 0
	fi
	echo "herdrtabrenamer build: go build failed; installing the release binary of $version instead" >&2
fi

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) fail "no release binary for $(uname -s) (linux and darwin only): $hint" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail "no release binary for $(uname -m) (amd64 and arm64 only): $hint" ;;
esac
archive="herdrtabrenamer_${version}_${os}_${arch}.tar.gz"

# The checksum is looked up before anything is downloaded: exactly one
# well-formed line must name this archive.
[ -r "$sums" ] || fail "$PWD/$sums is missing: reinstall with herdr plugin install herdrtabrenamer/herdrtabrenamer, or $hint"
want=$(awk -v f="$archive" '$2 == f { print $1 }' "$sums")
case $want in
'' | *[!0-9a-f]*) fail "$PWD/$sums lists no single SHA-256 for $archive, so nothing downloaded could be trusted: $hint" ;;
esac
[ ${#want} -eq 64 ] || fail "$PWD/$sums has a malformed SHA-256 for $archive: $hint"

# sha256sum on Linux, shasum on macOS.
if command -v sha256sum >/dev/null 2>&1; then
	hasher=sha256sum
elif command -v shasum >/dev/null 2>&1; then
	hasher="shasum -a 256"
else
	fail "neither sha256sum nor shasum is on PATH to check $archive: install coreutils (or perl for shasum), or $hint"
fi

base=${HERDRTABRENAMER_RELEASE_BASE:-$repo/releases/download/v$version}
url="${base%/}/$archive"
timeout=${HERDRTABRENAMER_DOWNLOAD_TIMEOUT:-120}
case $timeout in
'' | *[!0-9]* | 0) fail "HERDRTABRENAMER_DOWNLOAD_TIMEOUT=$timeout: want a whole number of seconds above 0" ;;
esac
max=${HERDRTABRENAMER_DOWNLOAD_MAX:-67108864}
case $max in
'' | *[!0-9]* | 0) fail "HERDRTABRENAMER_DOWNLOAD_MAX=$max: want a whole number of bytes above 0" ;;
esac

tmp=$(mktemp -d) || fail "cannot make a temporary folder (mktemp -d, TMPDIR=${TMPDIR:-unset}) to download $archive into: free some space or set TMPDIR"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# A fraction of a second to wait between looks at the download, where
# sleep takes one (GNU, BSD and busybox do).
if sleep 0.1 2>/dev/null; then tick=0.1 ticks=10; else tick=1 ticks=1; fi

# fetch CMD...: runs the download command, which writes the archive on its
# stdout, keeps at most $max+1 bytes of it in $tmp/$archive, and stops it
# after $timeout seconds in all: a tool's own time limit is per read, and a
# server that sends a byte now and then never trips it. The status is the
# command's, 124 when it was stopped; what it said is in $tmp/err.
fetch() {
	{
		"$@" 2>"$tmp/err" &
		echo $! >"$tmp/pid"
		wait $!
		echo $? >"$tmp/status"
	} 2>/dev/null | head -c $((max + 1)) >"$tmp/$archive" &
	waited=0
	until [ -s "$tmp/status" ]; do
		if [ $waited -ge $((timeout * ticks)) ]; then
			kill "$(cat "$tmp/pid" 2>/dev/null)" 2>/dev/null
			wait
			return 124
		fi
		sleep $tick
		waited=$((waited + 1))
	done
	wait
	return "$(cat "$tmp/status")"
}

echo "herdrtabrenamer build: no Go $gomod or newer on PATH; downloading $url"
status=0
if command -v curl >/dev/null 2>&1; then
	fetch curl -fsSL --max-time "$timeout" --max-filesize "$max" "$url" || status=$?
	why="curl exit status $status"
elif command -v wget >/dev/null 2>&1; then
	# GNU wget retries 20 times by default; busybox wget has no --tries.
	tries=
	if wget --help 2>&1 | grep -q -- --tries; then tries=--tries=1; fi
	# shellcheck disable=SC2086 # $tries is one word or none
	fetch wget -q -T "$timeout" $tries -O - "$url" || status=$?
	why="wget exit status $status: 4 is a network error or time-out, 8 an error answer such as 404"
else
	fail "neither curl nor wget is on PATH to download $url: install one of them, or $hint"
fi
size=$(wc -c <"$tmp/$archive" | tr -d ' ')
if [ "$size" -gt "$max" ]; then
	fail "refused $url: it sent more than $max bytes (HERDRTABRENAMER_DOWNLOAD_MAX), and the archive is a few MiB, so nothing was installed: check the address, or download it by hand from $release_page; or $hint"
fi
case $status in
0) ;;
124) fail "could not download $url within $timeout s (HERDRTABRENAMER_DOWNLOAD_TIMEOUT): check the network, or download it by hand from $release_page; or $hint" ;;
*) fail "could not download $url ($why$(err=$(oneline "$(cat "$tmp/err")"); [ -n "$err" ] && printf ': %s' "$err")): check the network, or download it by hand from $release_page; or $hint" ;;
esac

got=$($hasher "$tmp/$archive")
got=${got%% *}
[ "$got" = "$want" ] ||
	fail "refused $url: its SHA-256 is $got, but $sums lists $want, so the file was changed or damaged and nothing was installed: $hint"

mkdir "$tmp/x"
err=$(tar -xzf "$tmp/$archive" -C "$tmp/x" herdrtabrenamer 2>&1) ||
	fail "cannot unpack herdrtabrenamer from $archive ($(oneline "$err")): tar and gzip must be on PATH; or $hint"
if ! { mkdir -p bin && cp "$tmp/x/herdrtabrenamer" "$bin.new" && chmod 755 "$bin.new" && mv -f "$bin.new" "$bin"; }; then
	rm -f "$bin.new"
	fail "cannot write $PWD/$bin: check the folder's permissions and free space"
fi
ran=$("$bin" version 2>&1) || {
	rm -f "$bin"
	fail "the release binary for $os/$arch does not run here ($(oneline "$ran")): $hint"
}
echo "herdrtabrenamer build: installed $bin ($ran), SHA-256 checked against $sums"
