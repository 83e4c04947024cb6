// Package glyphs maps program names to Nerd Font glyphs for the {glyph}
// template token: a built-in table of common programs (editors, git tools,
// coding agents, languages, remote shells, containers, databases, monitors),
// which the config file's [glyphs] table overrides and extends. Shells have
// no glyph: a tab at a prompt shows none.
//
// Code points are Nerd Fonts 3 names (nf-dev-*, nf-cod-*, nf-custom-*,
// nf-md-*); a terminal without a Nerd Font shows a placeholder box, which
// is why {glyph} is not in the default template.
package glyphs

import (
	"fmt"
	"maps"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Nerd Font code points, by their Nerd Fonts 3 names.
const (
	vim        = "\ue7c5"     // nf-dev-vim
	emacs      = "\ue632"     // nf-custom-emacs
	edit       = "\uea73"     // nf-cod-edit
	git        = "\ue702"     // nf-dev-git
	gitBranch  = "\ue725"     // nf-dev-git_branch
	github     = "\ue70a"     // nf-dev-github
	diff       = "\ueae1"     // nf-cod-diff
	agent      = "\ueb08"     // nf-cod-hubot
	python     = "\ue73c"     // nf-dev-python
	nodejs     = "\ue718"     // nf-dev-nodejs_small
	npm        = "\ue71e"     // nf-dev-npm
	golang     = "\ue724"     // nf-dev-go
	rust       = "\ue7a8"     // nf-dev-rust
	ruby       = "\ue739"     // nf-dev-ruby
	rails      = "\ue73b"     // nf-dev-ruby_on_rails
	java       = "\ue738"     // nf-dev-java
	kotlin     = "\ue634"     // nf-custom-kotlin
	scala      = "\ue737"     // nf-dev-scala
	php        = "\ue73d"     // nf-dev-php
	composer   = "\ue783"     // nf-dev-composer
	perl       = "\ue769"     // nf-dev-perl
	haskell    = "\ue777"     // nf-dev-haskell
	elixir     = "\ue62d"     // nf-custom-elixir
	erlang     = "\ue7b1"     // nf-dev-erlang
	clojure    = "\ue768"     // nf-dev-clojure
	swift      = "\ue755"     // nf-dev-swift
	dart       = "\ue798"     // nf-dev-dart
	dotnet     = "\ue77f"     // nf-dev-dotnet
	clang      = "\ue61e"     // nf-custom-c
	cpp        = "\ue61d"     // nf-custom-cpp
	crystal    = "\ue62f"     // nf-custom-crystal
	elm        = "\ue62c"     // nf-custom-elm
	groovy     = "\ue775"     // nf-dev-groovy
	code       = "\ue796"     // nf-dev-code
	tools      = "\ueb6d"     // nf-cod-tools
	docker     = "\ue7b0"     // nf-dev-docker
	kubernetes = "\U000f10fe" // nf-md-kubernetes
	aws        = "\ue7ad"     // nf-dev-aws
	gcloud     = "\ue7b2"     // nf-dev-google_cloud_platform
	azure      = "\uebd8"     // nf-cod-azure
	heroku     = "\ue77b"     // nf-dev-heroku
	infra      = "\ueba3"     // nf-cod-server_environment
	remote     = "\ueb3a"     // nf-cod-remote
	plug       = "\ueb2d"     // nf-cod-plug
	postgres   = "\ue76e"     // nf-dev-postgresql
	mysql      = "\ue704"     // nf-dev-mysql
	redis      = "\ue76d"     // nf-dev-redis
	mongodb    = "\ue7a4"     // nf-dev-mongodb
	sqlite     = "\ue7c4"     // nf-dev-sqllite
	database   = "\ue706"     // nf-dev-database
	monitor    = "\ueacd"     // nf-cod-dashboard
	pulse      = "\ueb31"     // nf-cod-pulse
	folder     = "\ue5fe"     // nf-custom-folder_open
	book       = "\ueaa4"     // nf-cod-book
	file       = "\uea7b"     // nf-cod-file
	search     = "\uea6d"     // nf-cod-search
	globe      = "\ueb01"     // nf-cod-globe
	tower      = "\ueb34"     // nf-cod-radio_tower
	tmux       = "\uebc8"     // nf-cod-terminal_tmux
	pkg        = "\ueb29"     // nf-cod-package
	debian     = "\ue77d"     // nf-dev-debian
	play       = "\ueb2c"     // nf-cod-play
	mail       = "\ueb1c"     // nf-cod-mail
	chat       = "\ueac7"     // nf-cod-comment_discussion
	debug      = "\uead8"     // nf-cod-debug
	beaker     = "\uea79"     // nf-cod-beaker
	watch      = "\ueb7c"     // nf-cod-watch
	upload     = "\ueac3"     // nf-cod-cloud_upload
	output     = "\ueb9d"     // nf-cod-output
	gear       = "\ueb51"     // nf-cod-settings_gear
	notebook   = "\uebaf"     // nf-cod-notebook
	nginx      = "\ue776"     // nf-dev-nginx
	markdown   = "\ue73e"     // nf-dev-markdown
	key        = "\ueb11"     // nf-cod-key
	lock       = "\uea75"     // nf-cod-lock
)

// builtin is the default table. Program names are what {proc} shows.
var builtin = map[string]string{
	// editors
	"vim": vim, "nvim": vim, "vi": vim, "lvim": vim, "gvim": vim, "view": vim, "vimdiff": vim,
	"emacs": emacs, "emacsclient": emacs, "nano": edit, "micro": edit, "hx": edit, "helix": edit,
	"kak": edit, "ed": edit, "sudoedit": edit, "code": code, "zed": edit,
	// git and friends
	"git": git, "lazygit": git, "tig": git, "gitui": git, "git-absorb": git,
	"jj": gitBranch, "gh": github, "glab": git, "delta": diff, "difft": diff, "diff": diff,
	// coding agents
	"claude": agent, "codex": agent, "pi": agent, "gemini": agent, "opencode": agent,
	"aider": agent, "copilot": agent, "cursor-agent": agent, "goose": agent, "amp": agent,
	"droid": agent, "crush": agent, "cline": agent, "kimi": agent, "kiro": agent, "ollama": agent,
	"cursor": agent, "devin": agent, "agy": agent, "omp": agent, "mastracode": agent, "grok": agent,
	"hermes": agent, "kilo": agent, "qodercli": agent, "maki": agent,
	// languages and their tools
	"python": python, "python3": python, "ipython": python, "pip": python, "pip3": python,
	"uv": python, "poetry": python, "pytest": beaker, "jupyter": notebook,
	"node": nodejs, "deno": nodejs, "bun": nodejs, "tsx": nodejs, "npm": npm, "npx": npm,
	"pnpm": npm, "yarn": npm, "vite": nodejs, "jest": beaker, "vitest": beaker,
	"go": golang, "gopls": golang, "dlv": debug, "air": golang,
	"cargo": rust, "rustc": rust, "rustup": rust, "bacon": rust,
	"ruby": ruby, "irb": ruby, "bundle": ruby, "gem": ruby, "rake": ruby, "rails": rails,
	"java": java, "javac": java, "mvn": java, "gradle": java, "kotlin": kotlin, "kotlinc": kotlin,
	"scala": scala, "sbt": scala, "php": php, "composer": composer, "perl": perl,
	"ghc": haskell, "ghci": haskell, "stack": haskell, "cabal": haskell,
	"elixir": elixir, "iex": elixir, "mix": elixir, "erl": erlang, "rebar3": erlang,
	"clojure": clojure, "clj": clojure, "lein": clojure, "swift": swift, "dart": dart,
	"flutter": dart, "dotnet": dotnet, "gcc": clang, "cc": clang, "clang": clang,
	"g++": cpp, "clang++": cpp, "crystal": crystal, "elm": elm, "groovy": groovy,
	"make": tools, "cmake": tools, "ninja": tools, "just": tools, "bazel": tools,
	// containers and clouds
	"docker": docker, "docker-compose": docker, "podman": docker, "lazydocker": docker,
	"nerdctl": docker, "kubectl": kubernetes, "k9s": kubernetes, "helm": kubernetes,
	"minikube": kubernetes, "kind": kubernetes, "kubectx": kubernetes,
	"aws": aws, "gcloud": gcloud, "az": azure, "heroku": heroku,
	"terraform": infra, "tofu": infra, "ansible": infra, "ansible-playbook": infra, "pulumi": infra,
	// remote shells and the network
	"ssh": remote, "mosh": remote, "mosh-client": remote, "et": remote, "autossh": remote,
	"telnet": plug, "nc": plug, "socat": plug,
	"curl": globe, "wget": globe, "http": globe, "xh": globe,
	"ping": tower, "mtr": tower, "traceroute": tower,
	"scp": upload, "rsync": upload, "sftp": upload, "rclone": upload,
	// databases
	"psql": postgres, "postgres": postgres, "pgcli": postgres, "mysql": mysql,
	"mariadb": mysql, "mycli": mysql, "redis-cli": redis, "redis-server": redis,
	"mongo": mongodb, "mongosh": mongodb, "sqlite3": sqlite, "litecli": sqlite,
	"duckdb": database, "usql": database, "clickhouse": database,
	// monitors
	"htop": monitor, "btop": monitor, "top": monitor, "atop": monitor, "btm": monitor,
	"glances": monitor, "gotop": monitor, "nvtop": monitor, "iotop": monitor, "bpytop": monitor,
	"watch": watch, "journalctl": output, "dmesg": output, "tail": output,
	"systemctl": gear, "nginx": nginx,
	// files, pages and searches
	"ranger": folder, "lf": folder, "nnn": folder, "yazi": folder, "mc": folder,
	"vifm": folder, "broot": folder, "man": book, "less": file, "more": file, "bat": file,
	"glow": markdown, "rg": search, "grep": search, "fzf": search, "fd": search, "find": search,
	// multiplexers, packages, media, mail, chat, debuggers, secrets
	"tmux": tmux, "zellij": tmux, "screen": tmux,
	"apt": debian, "apt-get": debian, "dpkg": debian, "brew": pkg, "pacman": pkg, "yay": pkg,
	"paru": pkg, "dnf": pkg, "nix": pkg, "nix-shell": pkg, "flatpak": pkg,
	"mpv": play, "vlc": play, "ffmpeg": play, "cmus": play,
	"neomutt": mail, "mutt": mail, "aerc": mail, "weechat": chat, "irssi": chat,
	"gdb": debug, "lldb": debug, "pdb": debug,
	"gpg": key, "pass": lock, "age": lock,
}

// Default returns a copy of the built-in table.
func Default() map[string]string { return maps.Clone(builtin) }

// Table answers Lookup from the built-in table and the user's overrides.
// It is immutable and safe for concurrent use.
type Table struct {
	m map[string]string
}

// MaxWidth bounds a glyph's display width: a glyph is a mark beside a
// name, not a name.
const MaxWidth = 4

// New builds a table from the built-in one and overrides: a key sets or
// replaces a program's glyph, an empty value removes it. A key must be a
// program name (no blanks, '/' or control characters); a value must have no
// control characters and be at most MaxWidth columns wide.
func New(overrides map[string]string) (*Table, error) {
	m := Default()
	for name, g := range overrides {
		if err := CheckKey(name); err != nil {
			return nil, err
		}
		if err := CheckValue(name, g); err != nil {
			return nil, err
		}
		if g == "" {
			delete(m, name)
			continue
		}
		m[name] = g
	}
	return &Table{m: m}, nil
}

// CheckKey says why name cannot be a [glyphs] key, nil when it can.
func CheckKey(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("glyphs: empty program name")
	case !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == '/'
	}):
		return fmt.Errorf("glyphs: %q is no program name (no blanks, '/' or control characters)", name)
	}
	return nil
}

// CheckValue says why g cannot be the glyph of name, nil when it can.
func CheckValue(name, g string) error {
	switch {
	case !utf8.ValidString(g) || strings.ContainsFunc(g, unicode.IsControl):
		return fmt.Errorf("glyphs: %s: %q has control characters or invalid UTF-8", name, g)
	case uniseg.StringWidth(g) > MaxWidth:
		return fmt.Errorf("glyphs: %s: %q is %d columns wide, more than %d", name, g, uniseg.StringWidth(g), MaxWidth)
	}
	return nil
}

// Lookup returns the glyph of a program, "" for unknown programs and
// shells. A versioned name falls back to its stem: python3.12 -> python3
// -> python.
func (t *Table) Lookup(program string) string {
	if t == nil || program == "" {
		return ""
	}
	if g, ok := t.m[program]; ok {
		return g
	}
	low := strings.ToLower(program)
	if g, ok := t.m[low]; ok {
		return g
	}
	for stem := low; ; {
		next := strings.TrimRight(stem, "0123456789.")
		if next == stem || next == "" {
			break
		}
		if g, ok := t.m[next]; ok {
			return g
		}
		stem = next
	}
	return ""
}
