package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/alecthomas/kong"

	"github.com/herdrtabrenamer/herdrtabrenamer/config"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// moduleOptionTargets says where each home-manager option ends up: a flag
// of `run` ("--name"), a config.toml key ("key"), a [[table]] of the config
// file ("[[rules]]"), or something outside the program ("").
var moduleOptionTargets = map[string]string{
	"enable":   "",
	"package":  "",
	"format":   "format",
	"apply":    "--apply",
	"poll":     "--poll",
	"icons":    "icons",
	"maxLen":   "max-len",
	"rules":    "[[rules]]",
	"rewrites": "[[rewrites]]",
	"settings": "", // config.toml as it is; TestFlakeModuleEval loads it
	// enable*Integration: the `init <shell>` lines, checked in TestFlakeModuleEval.
	"enableZshIntegration":  "",
	"enableBashIntegration": "",
	"enableFishIntegration": "",
	"extraArgs":             "", // passed through; TestFlakeModuleEval parses them
}

// tableKeysOf lists the toml keys of a [[table]] of the config file.
var tableKeysOf = map[string]reflect.Type{
	"[[rules]]":    reflect.TypeFor[namer.RuleSpec](),
	"[[rewrites]]": reflect.TypeFor[procinfo.RewriteSpec](),
}

func tomlKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		if k, _, _ := strings.Cut(f.Tag.Get("toml"), ","); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// kongFlags returns the long flags of the whole CLI and of `run`.
func kongFlags(t *testing.T) (all, run map[string]bool) {
	t.Helper()
	var cli CLI
	k, err := kong.New(&cli, kong.Name("herdrtabrenamer"), kong.Vars{"version": "test"})
	if err != nil {
		t.Fatal(err)
	}
	all, run = map[string]bool{}, map[string]bool{}
	err = kong.Visit(k.Model, func(v kong.Visitable, next kong.Next) error {
		if f, ok := v.(*kong.Flag); ok {
			all[f.Name] = true
		}
		return next(nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range k.Model.Children {
		if n.Name == "run" {
			for p := n; p != nil; p = p.Parent {
				for _, f := range p.Flags {
					run[f.Name] = true
				}
			}
		}
	}
	if len(run) == 0 {
		t.Fatal("the kong model has no run command")
	}
	return all, run
}

func readFlake(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("flake.nix")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// between returns the text of s from the first start to the first end after it.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		t.Fatalf("flake.nix: %q not found; the test reads the module by it", start)
	}
	block, _, ok := strings.Cut(rest, end)
	if !ok {
		t.Fatalf("flake.nix: no %q after %q", end, start)
	}
	return block
}

// TestFlakeOptionsMapToFlags reads the module's text: every option it
// declares must have a target here, every target must be a real flag or
// config key, and what the module renders must use real flags and keys.
// Renaming a flag in the kong model fails this test.
func TestFlakeOptionsMapToFlags(t *testing.T) {
	flake := readFlake(t)
	all, run := kongFlags(t)

	opts := between(t, flake, "options.services.herdrtabrenamer = {", "config = mkIf")
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(\w+) = (?:mkOption|mkEnableOption|nullOr)\b`).FindAllStringSubmatch(opts, -1) {
		declared[m[1]] = true
	}
	if len(declared) < 10 {
		t.Fatalf("found only %d options in flake.nix: %v", len(declared), declared)
	}
	subKeys := map[string]bool{}
	for _, typ := range tableKeysOf {
		for _, k := range tomlKeys(typ) {
			subKeys[k] = true
		}
	}
	for name := range declared {
		if _, ok := moduleOptionTargets[name]; !ok && !subKeys[name] {
			t.Errorf("flake.nix option %q has no entry in moduleOptionTargets and is no [[rules]]/[[rewrites]] key", name)
		}
	}
	for name, target := range moduleOptionTargets {
		if !declared[name] {
			t.Errorf("moduleOptionTargets names %q, which flake.nix does not declare", name)
		}
		switch {
		case target == "":
		case strings.HasPrefix(target, "--"):
			if !run[strings.TrimPrefix(target, "--")] {
				t.Errorf("option %s maps to %s, which is no flag of `run`", name, target)
			}
		case strings.HasPrefix(target, "[["):
			if _, ok := tableKeysOf[target]; !ok {
				t.Errorf("option %s maps to unknown table %s", name, target)
			}
		default:
			if !all[target] || config.Excluded[target] {
				t.Errorf("option %s maps to config key %q, which is no flag the config file accepts", name, target)
			}
		}
	}
	// Sub-options of rules and rewrites must be the config file's keys.
	for table, typ := range tableKeysOf {
		name := strings.Trim(table, "[]")
		block := between(t, opts, name+" = mkOption", "default =")
		var got []string
		for _, m := range regexp.MustCompile(`(?m)^\s*([\w-]+) = nullOr\b`).FindAllStringSubmatch(block, -1) {
			got = append(got, m[1])
		}
		want := tomlKeys(typ)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("flake.nix %s keys %v, config file keys %v", name, got, want)
		}
	}

	// What the module renders: config.toml keys and run's flags.
	settings := between(t, flake, "// present {", "};")
	for _, m := range regexp.MustCompile(`(?m)^\s*([\w-]+) = (?:map present )?cfg\.(\w+);`).FindAllStringSubmatch(settings, -1) {
		key, opt := m[1], m[2]
		target, ok := moduleOptionTargets[opt]
		switch {
		case !ok:
			t.Errorf("config.toml key %s comes from unknown option %s", key, opt)
		case target != key && target != "[["+key+"]]":
			t.Errorf("config.toml key %s comes from option %s, which moduleOptionTargets maps to %q", key, opt, target)
		}
	}
	args := between(t, flake, "args =", "\n        in")
	for _, m := range regexp.MustCompile(`"--([\w-]+)"`).FindAllStringSubmatch(args, -1) {
		if !run[m[1]] {
			t.Errorf("the service passes --%s, which is no flag of `run`", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`cfg\.(\w+)`).FindAllStringSubmatch(args, -1) {
		if target := moduleOptionTargets[m[1]]; !strings.HasPrefix(target, "--") && m[1] != "extraArgs" {
			t.Errorf("the service's command line uses option %s, which moduleOptionTargets maps to %q, not a flag", m[1], target)
		}
	}
}

// hmHarness evaluates the flake's home-manager module without nixpkgs or
// home-manager (neither is reachable offline): a small stand-in for lib
// and pkgs, option defaults filled in the way the module system does, and
// mkIf/mkMerge resolved. It prints what the module produces as JSON.
const hmHarness = `
{ flakeDir, userJSON, linux }:
let
  user = builtins.fromJSON userJSON;
  flake = import (flakeDir + "/flake.nix");
  types = {
    package = { name = "package"; };
    str = { name = "str"; };
    bool = { name = "bool"; };
    ints.unsigned = { name = "unsigned"; };
    nullOr = elem: { name = "nullOr"; inherit elem; };
    attrs = { name = "attrs"; };
    listOf = elem: { name = "listOf"; inherit elem; };
    attrsOf = elem: { name = "attrsOf"; inherit elem; };
    submodule = m: { name = "submodule"; inherit (m) options; };
  };
  lib = {
    inherit types;
    mkOption = o: o // { _isOption = true; };
    mkEnableOption = d: { _isOption = true; default = false; type = types.bool; description = d; };
    literalExpression = s: s;
    mkIf = condition: content: { _type = "if"; inherit condition content; };
    mkMerge = contents: { _type = "merge"; inherit contents; };
    filterAttrs = pred: set: builtins.listToAttrs (builtins.filter (a: pred a.name a.value)
      (map (name: { inherit name; value = set.${name}; }) (builtins.attrNames set)));
    optional = c: x: if c then [ x ] else [ ];
    optionals = c: xs: if c then xs else [ ];
    concatMapStringsSep = sep: f: xs: builtins.concatStringsSep sep (map f xs);
    inherit (builtins) replaceStrings;
  };
  isOption = o: builtins.isAttrs o && o._isOption or false;
  # fill: option tree + user values -> config values, defaults for the rest.
  fill = opts: vals: builtins.mapAttrs (n: o:
    if isOption o then
      (if vals ? ${n} then
        (if o.type.name or "" == "listOf" && o.type.elem.name or "" == "submodule"
         then map (fill o.type.elem.options) vals.${n}
         else vals.${n})
       else o.default)
    else fill o (vals.${n} or { })) opts;
  # optionPaths: "enable", "shellIntegration.zsh", "rules.*.dir", ...
  optionPaths = prefix: opts: builtins.concatLists (map (n:
    let o = opts.${n}; in
    if isOption o then
      [ (prefix + n) ] ++ (if o.type.name or "" == "listOf" && o.type.elem.name or "" == "submodule"
        then optionPaths (prefix + n + ".*.") o.type.elem.options else [ ])
    else optionPaths (prefix + n + ".") o) (builtins.attrNames opts));
  deepMerge = a: b: a // builtins.mapAttrs (n: v:
    if builtins.isAttrs v && builtins.isAttrs (a.${n} or null) then deepMerge a.${n} v else v) b;
  resolve = v:
    if builtins.isAttrs v && v._type or null == "if" then (if v.condition then resolve v.content else { })
    else if builtins.isAttrs v && v._type or null == "merge" then
      builtins.foldl' deepMerge { } (map resolve v.contents)
    else if builtins.isAttrs v && !(v ? __toString) then builtins.mapAttrs (_: resolve) v
    else v;
  pkgs = {
    stdenv.hostPlatform = { isLinux = linux; isDarwin = !linux; system = "x86_64-linux"; };
    formats.toml = _: {
      type = { name = "toml"; };
      generate = name: value: { __toString = _: "/nix/store/00000000000000000000000000000000-" + name; inherit value; };
    };
  };
  module = (flake.outputs { self = { }; nixpkgs = { inherit lib; }; }).homeManagerModules.default;
  m = module {
    inherit lib pkgs;
    config = {
      services.herdrtabrenamer = fill m.options.services.herdrtabrenamer user;
      home.homeDirectory = "/home/u";
    };
  };
  conf = resolve m.config;
  cfgFile = conf.xdg.configFile."herdrtabrenamer/config.toml".source or null;
in {
  options = optionPaths "" m.options.services.herdrtabrenamer;
  settings = if cfgFile == null then null else cfgFile.value;
  configPath = if cfgFile == null then null else toString cfgFile;
  packages = map toString (conf.home.packages or [ ]);
  systemd = conf.systemd.user.services.herdrtabrenamer or null;
  launchd = conf.launchd.agents.herdrtabrenamer or null;
  zsh = conf.programs.zsh.initContent or null;
  bash = conf.programs.bash.initExtra or null;
  fish = conf.programs.fish.interactiveShellInit or null;
}
`

// hmResult is what hmHarness prints.
type hmResult struct {
	Options    []string       `json:"options"`
	Settings   map[string]any `json:"settings"`
	ConfigPath *string        `json:"configPath"`
	Packages   []string       `json:"packages"`
	Systemd    *struct {
		Unit    map[string]any      `json:"Unit"`
		Service map[string]any      `json:"Service"`
		Install map[string][]string `json:"Install"`
	} `json:"systemd"`
	Launchd *struct {
		Enable bool `json:"enable"`
		Config struct {
			ProgramArguments  []string       `json:"ProgramArguments"`
			RunAtLoad         bool           `json:"RunAtLoad"`
			KeepAlive         map[string]any `json:"KeepAlive"`
			ProcessType       string         `json:"ProcessType"`
			StandardOutPath   string         `json:"StandardOutPath"`
			StandardErrorPath string         `json:"StandardErrorPath"`
		} `json:"config"`
	} `json:"launchd"`
	Zsh  *string `json:"zsh"`
	Bash *string `json:"bash"`
	Fish *string `json:"fish"`
}

func evalModule(t *testing.T, nix string, user map[string]any, linux bool) hmResult {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	userJSON, err := json.Marshal(user)
	if err != nil {
		t.Fatal(err)
	}
	harness := filepath.Join(t.TempDir(), "harness.nix")
	if err := os.WriteFile(harness, []byte(hmHarness), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nix, "--eval", "--strict", "--json", harness,
		"--arg", "flakeDir", dir, "--argstr", "userJSON", string(userJSON),
		"--arg", "linux", fmt.Sprint(linux))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("evaluate the home-manager module: %v\n%s", err, stderr.String())
	}
	var r hmResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("decode module result: %v\n%s", err, out)
	}
	return r
}

// parseExecStart splits an ExecStart the way systemd does for the words
// the module writes: double-quoted, \" and \\ escapes, %% and $$ doubled.
func parseExecStart(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimLeft(s, " ") {
		if s[0] != '"' {
			t.Fatalf("ExecStart word is not quoted: %q", s)
		}
		var b strings.Builder
		i := 1
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' {
				i++
			}
			b.WriteByte(s[i])
		}
		if i >= len(s) {
			t.Fatalf("ExecStart: unterminated quote in %q", s)
		}
		w := strings.NewReplacer("%%", "%", "$$", "$").Replace(b.String())
		words = append(words, w)
		s = s[i+1:]
	}
	return words
}

// parseRun parses a service command line with the real kong model.
func parseRun(t *testing.T, args []string) *CLI {
	t.Helper()
	var cli CLI
	k, err := kong.New(&cli, kong.Name("herdrtabrenamer"), kong.Vars{"version": "test"}, kong.Exit(func(int) { t.Fatalf("kong exited on %q", args) }))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := k.Parse(args)
	if err != nil {
		t.Fatalf("the service's command line %q does not parse: %v", args, err)
	}
	if ctx.Command() != "run" {
		t.Fatalf("the service runs %q, want run", ctx.Command())
	}
	return &cli
}

// TestFlakeModuleEval evaluates the module (Nix required) and feeds what it
// renders to the program's own parser and config loader.
func TestFlakeModuleEval(t *testing.T) {
	nix, err := exec.LookPath("nix-instantiate")
	if err != nil {
		t.Skip("nix-instantiate not installed (apt-get install nix-bin); module not evaluated")
	}
	const pkg = "/nix/store/11111111111111111111111111111111-herdrtabrenamer"
	const exe = pkg + "/bin/herdrtabrenamer"
	full := map[string]any{
		"enable": true, "package": pkg,
		"format": "{icon}{proc}", "poll": "5s", "icons": "blocked=X,idle=", "maxLen": 30,
		"rules": []map[string]any{
			{"dir": "~/src/*", "format": "{repo}"},
			{"program": "htop", "skip": true},
		},
		"rewrites":              []map[string]any{{"match": "^python3?$", "replace": "py"}},
		"settings":              map[string]any{"unique": true, "format": "overridden by the format option"},
		"enableZshIntegration":  true,
		"enableBashIntegration": true,
		"enableFishIntegration": true,
		"extraArgs":             []string{"--alias", `nvim=vi m%$x"\`},
	}

	t.Run("options", func(t *testing.T) {
		r := evalModule(t, nix, map[string]any{"enable": false, "package": pkg}, true)
		for _, p := range r.Options {
			name := p
			if i := strings.LastIndexAny(p, ".*"); i >= 0 {
				name = p[i+1:]
			}
			if _, ok := moduleOptionTargets[name]; !ok && !strings.Contains(p, ".*.") {
				t.Errorf("option %s has no entry in moduleOptionTargets", p)
			}
		}
		for table, typ := range tableKeysOf {
			for _, k := range tomlKeys(typ) {
				if p := strings.Trim(table, "[]") + ".*." + k; !slices.Contains(r.Options, p) {
					t.Errorf("module lacks option %s for config key %s.%s", p, table, k)
				}
			}
		}
		if r.Systemd != nil || r.Settings != nil || len(r.Packages) > 0 || r.Zsh != nil {
			t.Errorf("disabled module still configures things: %+v", r)
		}
	})

	t.Run("linux", func(t *testing.T) {
		r := evalModule(t, nix, full, true)
		if r.Systemd == nil || r.Launchd != nil {
			t.Fatalf("on Linux want a systemd service and no launchd agent: %+v", r)
		}
		words := parseExecStart(t, r.Systemd.Service["ExecStart"].(string))
		if words[0] != exe {
			t.Errorf("ExecStart runs %q, want %q", words[0], exe)
		}
		cli := parseRun(t, words[1:])
		if !cli.Run.Apply || !cli.Run.IfNotRunning || cli.Run.Poll != 5*time.Second || cli.Run.Alias != `nvim=vi m%$x"\` {
			t.Errorf("service flags parsed as apply=%v if-not-running=%v poll=%v alias=%q", cli.Run.Apply, cli.Run.IfNotRunning, cli.Run.Poll, cli.Run.Alias)
		}
		if r.ConfigPath == nil || cli.Config != *r.ConfigPath {
			t.Errorf("service --config = %q, want the generated file %v", cli.Config, r.ConfigPath)
		}
		for k, want := range map[string]any{"Restart": "on-failure", "RestartSec": 1.0, "NoNewPrivileges": true,
			"ExecReload": "/bin/kill -HUP $MAINPID", "ProtectSystem": "strict", "ProtectHome": "read-only", "PrivateTmp": true,
			"StateDirectory": "herdrtabrenamer", "RuntimeDirectory": "herdrtabrenamer", "RuntimeDirectoryPreserve": "yes"} {
			if got := r.Systemd.Service[k]; got != want {
				t.Errorf("Service.%s = %v, want %v", k, got, want)
			}
		}
		if got := r.Systemd.Install["WantedBy"]; !slices.Equal(got, []string{"default.target"}) {
			t.Errorf("Install.WantedBy = %v", got)
		}
		checkSettings(t, r.Settings)
		for shell, line := range map[string]*string{"zsh": r.Zsh, "bash": r.Bash, "fish": r.Fish} {
			want := `eval "$(` + exe + ` init ` + shell + `)"`
			if shell == "fish" {
				want = exe + " init fish | source"
			}
			if line == nil || strings.TrimSpace(*line) != want {
				t.Errorf("%s init line = %v, want %q", shell, line, want)
			}
			var c CLI
			k, _ := kong.New(&c, kong.Name("herdrtabrenamer"), kong.Vars{"version": "test"})
			if _, err := k.Parse([]string{"init", shell}); err != nil {
				t.Errorf("the %s line runs `init %s`, which does not parse: %v", shell, shell, err)
			}
		}
		if !slices.Equal(r.Packages, []string{pkg}) {
			t.Errorf("home.packages = %v", r.Packages)
		}
	})

	t.Run("darwin", func(t *testing.T) {
		r := evalModule(t, nix, full, false)
		if r.Launchd == nil || r.Systemd != nil {
			t.Fatalf("on macOS want a launchd agent and no systemd service: %+v", r)
		}
		c := r.Launchd.Config
		if !r.Launchd.Enable || !c.RunAtLoad || c.KeepAlive["SuccessfulExit"] != false || c.ProcessType != "Background" {
			t.Errorf("launchd agent: %+v", r.Launchd)
		}
		if want := "/home/u/Library/Logs/herdrtabrenamer.log"; c.StandardOutPath != want || c.StandardErrorPath != want {
			t.Errorf("launchd logs go to %q and %q, want %q", c.StandardOutPath, c.StandardErrorPath, want)
		}
		if len(c.ProgramArguments) == 0 || c.ProgramArguments[0] != exe {
			t.Fatalf("ProgramArguments = %q", c.ProgramArguments)
		}
		cli := parseRun(t, c.ProgramArguments[1:])
		if !cli.Run.Apply || !cli.Run.IfNotRunning || cli.Run.Alias != `nvim=vi m%$x"\` {
			t.Errorf("agent flags parsed as apply=%v if-not-running=%v alias=%q", cli.Run.Apply, cli.Run.IfNotRunning, cli.Run.Alias)
		}
	})

	t.Run("defaults", func(t *testing.T) {
		r := evalModule(t, nix, map[string]any{"enable": true, "package": pkg}, true)
		words := parseExecStart(t, r.Systemd.Service["ExecStart"].(string))
		if want := []string{exe, "run", "--apply", "--if-not-running", "--config", *r.ConfigPath}; !slices.Equal(words, want) {
			t.Errorf("default ExecStart %q, want %q", words, want)
		}
		if len(r.Settings) != 0 {
			t.Errorf("default config.toml sets %v, want nothing (the program's defaults)", r.Settings)
		}
		if r.Zsh != nil || r.Bash != nil || r.Fish != nil {
			t.Error("shell integration is on by default")
		}
		if cli := parseRun(t, words[1:]); !cli.Run.Apply {
			t.Error("apply is not on by default")
		}
	})
}

// checkSettings writes the module's settings as TOML and loads them with
// the program's own config loader and validation.
func checkSettings(t *testing.T, settings map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(jsonInts(settings)); err != nil {
		t.Fatalf("encode settings %v: %v", settings, err)
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cli, _, cf, err := parse([]string{"--config", path, "explain"}, io.Discard, io.Discard, func(int) {})
	if err != nil {
		t.Fatalf("explain with the module's config.toml: %v", err)
	}
	if cf.Broken != nil {
		t.Fatalf("the module's config.toml is rejected: %v\n%s", cf.Broken, buf.String())
	}
	if f := cli.Explain.NamingFlags; f.Format != "{icon}{proc}" || f.MaxLen != 30 || f.Icons != "blocked=X,idle=" || !f.Unique {
		t.Errorf("config.toml gave format=%q max-len=%d icons=%q unique=%v", f.Format, f.MaxLen, f.Icons, f.Unique)
	}
	wantRules := []namer.RuleSpec{{Dir: "~/src/*", Format: "{repo}"}, {Program: "htop", Skip: true}}
	if !reflect.DeepEqual(cf.Rules, wantRules) {
		t.Errorf("rules = %+v, want %+v", cf.Rules, wantRules)
	}
	if want := []procinfo.RewriteSpec{{Match: "^python3?$", Replace: "py"}}; !reflect.DeepEqual(cf.Rewrites, want) {
		t.Errorf("rewrites = %+v, want %+v", cf.Rewrites, want)
	}
}

// jsonInts turns JSON's whole float64 numbers back into the integers Nix
// had, so they are TOML integers again.
func jsonInts(v any) any {
	switch v := v.(type) {
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = jsonInts(e)
		}
	case []any:
		for i, e := range v {
			v[i] = jsonInts(e)
		}
	}
	return v
}
