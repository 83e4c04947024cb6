package procinfo

import "strings"

// hopKind says what a handler made of a command line.
type hopKind int

const (
	hopStop   hopKind = iota // this command is the program
	hopNext                  // it launches or interprets next
	hopShellC                // a shell runs the command string cmd
)

// hop is one step of looking through a launcher or an interpreter.
type hop struct {
	kind hopKind
	// next is the argv to keep resolving (hopNext); nextName, when set,
	// names next[0] better than its basename does (npx pkg@1 -> pkg).
	next     []string
	nextName string
	// name, for hopStop, replaces the command's own name
	// (python3 -m http.server -> http.server).
	name string
	cmd  string // hopShellC: the command string
	why  string
	// script is set when a shell runs a script file, whose "-wrapped"
	// name marks a NixOS wrapper script around the real program.
	script bool
}

// handler looks at a command's arguments; self is its cleaned name.
type handler func(self string, args []string) hop

func stop() hop                  { return hop{kind: hopStop} }
func named(name, why string) hop { return hop{kind: hopStop, name: name, why: why} }
func next(args []string, why string) hop {
	if len(args) == 0 {
		return stop() // a launcher with nothing to launch is itself the program
	}
	return hop{kind: hopNext, next: args, why: why}
}

// handlers maps a cleaned command name to how to look through it. Shells
// and the python family are found by handlerFor, not listed here.
var handlers = map[string]handler{
	"sudo": sudoHop, "doas": doasHop, "env": envHop, "nice": niceHop,
	"nohup": nohupHop, "time": timeHop, "exec": execHop, "command": commandHop,
	"nix": nixHop, "nix-shell": nixShellHop,
	"npx": npxHop, "bunx": npxHop, "pnpm": pnpmHop, "npm": npmHop, "yarn": yarnHop,
	"uvx": uvxHop, "uv": uvHop,
	"node": nodeHop, "nodejs": nodeHop, "tsx": nodeHop, "ts-node": nodeHop,
	"bun": bunHop, "deno": denoHop,
	"ruby": rubyHop, "perl": perlHop,
}

func handlerFor(name string) handler {
	if h, ok := handlers[name]; ok {
		return h
	}
	if _, ok := shellSpecs[name]; ok {
		return shellHop
	}
	if isPython(name) {
		return pythonHop
	}
	return nil
}

// isPython matches python, python3, python3.12, pypy3 and the like.
func isPython(name string) bool {
	var rest string
	switch {
	case strings.HasPrefix(name, "python"):
		rest = name[len("python"):]
	case strings.HasPrefix(name, "pypy"):
		rest = name[len("pypy"):]
	default:
		return false
	}
	return strings.Trim(rest, "0123456789.") == ""
}

func skipAssignments(args []string, i int) int {
	for i < len(args) && isAssignment(args[i]) {
		i++
	}
	return i
}

var sudoOpts = optSpec{short: "CDghpRrTtUu", long: []string{
	"--user", "--group", "--prompt", "--close-from", "--chdir", "--role",
	"--type", "--other-user", "--command-timeout", "--chroot", "--host"}}

func sudoHop(_ string, args []string) hop {
	edit := false
	i, _ := sudoOpts.scan(args, func(s byte, l, _ string) bool {
		if s == 'e' || l == "--edit" {
			edit = true
		}
		return true
	})
	if edit {
		return named("sudoedit", "sudo -e is sudoedit")
	}
	return next(args[skipAssignments(args, i):], "looked through sudo")
}

var doasOpts = optSpec{short: "uC"}

func doasHop(_ string, args []string) hop {
	return next(args[doasOpts.operand(args):], "looked through doas")
}

var envOpts = optSpec{short: "uCSP", long: []string{"--unset", "--chdir", "--split-string"}}

func envHop(_ string, args []string) hop {
	var split string
	i, stopped := envOpts.scan(args, func(s byte, l, v string) bool {
		if s == 'S' || l == "--split-string" {
			split = v
			return false
		}
		return true
	})
	if stopped {
		// env -S "prog args" (shebang lines): the string is more argv.
		return next(append(splitCommand(split), args[i+1:]...), "looked through env -S")
	}
	for i < len(args) && (args[i] == "-" || isAssignment(args[i])) {
		i++
	}
	return next(args[i:], "looked through env")
}

var niceOpts = optSpec{short: "n", long: []string{"--adjustment"}}

func niceHop(_ string, args []string) hop {
	return next(args[niceOpts.operand(args):], "looked through nice")
}

func nohupHop(_ string, args []string) hop {
	return next(args[optSpec{}.operand(args):], "looked through nohup")
}

var timeOpts = optSpec{short: "fo", long: []string{"--format", "--output"}}

func timeHop(_ string, args []string) hop {
	return next(args[timeOpts.operand(args):], "looked through time")
}

var execOpts = optSpec{short: "a"}

// execHop handles the shell builtin, seen only inside `sh -c` strings.
// `exec -a NAME prog` names the program NAME: that is the argv[0] the
// process will show (and what herdr will report once it runs), and the
// name its starter chose for it, just as a login shell's "-zsh" is kept.
func execHop(_ string, args []string) hop {
	var alias string
	i, _ := execOpts.scan(args, func(s byte, _, v string) bool {
		if s == 'a' {
			alias = v
		}
		return true
	})
	h := next(args[i:], "looked through exec")
	if alias != "" && h.kind == hopNext {
		h.nextName = alias
		h.why = "exec -a " + alias
	}
	return h
}

func commandHop(_ string, args []string) hop {
	lookup := false
	i, _ := optSpec{}.scan(args, func(s byte, _, _ string) bool {
		lookup = lookup || s == 'v' || s == 'V'
		return true
	})
	if lookup {
		return stop()
	}
	return next(args[i:], "looked through command")
}

// nix options that take one or two values; the rest are flags.
var (
	nixOneValue = map[string]bool{
		"-I": true, "--include": true, "-f": true, "--file": true, "--expr": true,
		"--profile": true, "--store": true, "--eval-store": true, "--log-format": true,
		"-j": true, "--max-jobs": true, "--cores": true, "-k": true, "--keep-env-var": true,
		"-u": true, "--unset-env-var": true, "--extra-experimental-features": true,
		"--experimental-features": true, "--inputs-from": true, "--reference-lock-file": true,
		"--output-lock-file": true, "--update-input": true, "--chdir": true,
	}
	nixTwoValues = map[string]bool{
		"--option": true, "--arg": true, "--argstr": true, "--arg-from-file": true,
		"--override-input": true, "--override-flake": true, "-s": true, "--set-env-var": true,
	}
)

// nixHop: `nix run nixpkgs#btop` runs btop; `nix shell|develop ... -c
// prog` runs prog. nix execs the program once it is built, so these
// matter while it builds and inside `sh -c` strings.
func nixHop(_ string, args []string) hop {
	var sub, inst string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i = len(args)
		case a == "-c" || a == "--command":
			if sub == "shell" || sub == "develop" || sub == "env" {
				return next(args[i+1:], "looked through nix "+sub)
			}
		case nixTwoValues[a]:
			i += 2
		case nixOneValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		case sub == "":
			sub = a
		case inst == "":
			inst = a
		}
	}
	if sub == "run" && inst != "" {
		if name := nixInstallableName(inst); name != "" {
			return named(name, "looked through nix run")
		}
	}
	return stop()
}

// nixShellHop: `nix-shell -p x --run CMD` runs CMD through a shell.
func nixShellHop(_ string, args []string) hop {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--run" || args[i] == "--command" {
			return hop{kind: hopShellC, cmd: args[i+1], why: "nix-shell --run"}
		}
	}
	return stop()
}

var npxOpts = optSpec{short: "pc", long: []string{"--package", "--call", "--cache", "--registry", "--userconfig"}}

// npxHop covers npx, bunx, npm exec, pnpm dlx and yarn dlx: the first
// operand is a package spec or the command to run from it.
func npxHop(self string, args []string) hop {
	return npxLike("looked through "+self, args)
}

func npxLike(why string, args []string) hop {
	var call string
	// npx -c CMD / --call CMD and pnpm dlx -c CMD run CMD through a shell.
	i, stopped := npxOpts.scan(args, func(s byte, l, v string) bool {
		if s == 'c' || l == "--call" {
			call = v
			return false
		}
		return true
	})
	if stopped {
		return hop{kind: hopShellC, cmd: call, why: why + " -c"}
	}
	h := next(args[i:], why)
	if h.kind == hopNext {
		h.nextName = npmPackageName(args[i])
	}
	return h
}

var pnpmOpts = optSpec{short: "CF", long: []string{"--dir", "--filter", "--reporter", "--loglevel"}}

func pnpmHop(_ string, args []string) hop {
	i := pnpmOpts.operand(args)
	if i < len(args) {
		switch args[i] {
		case "dlx":
			return npxLike("looked through pnpm dlx", args[i+1:])
		case "exec":
			rest := args[i+1:]
			return next(rest[pnpmOpts.operand(rest):], "looked through pnpm exec")
		}
	}
	return stop()
}

func npmHop(_ string, args []string) hop {
	i := npxOpts.operand(args)
	if i < len(args) && (args[i] == "exec" || args[i] == "x") {
		return npxLike("looked through npm exec", args[i+1:])
	}
	return stop()
}

func yarnHop(_ string, args []string) hop {
	i := optSpec{}.operand(args)
	if i < len(args) {
		switch args[i] {
		case "dlx":
			return npxLike("looked through yarn dlx", args[i+1:])
		case "exec":
			return next(args[i+1:], "looked through yarn exec")
		}
	}
	return stop()
}

var uvxOpts = optSpec{short: "wpifcb", long: []string{
	"--from", "--with", "--with-editable", "--with-requirements", "--python",
	"--index", "--default-index", "--index-url", "--extra-index-url", "--find-links",
	"--constraints", "--overrides", "--build-constraints", "--directory", "--project",
	"--config-file", "--cache-dir", "--color", "--python-preference", "--env-file"}}

func uvxHop(self string, args []string) hop {
	i := uvxOpts.operand(args)
	h := next(args[i:], "looked through "+self)
	if h.kind == hopNext {
		h.nextName = pyPackageName(args[i])
	}
	return h
}

var uvRunOpts = optSpec{short: "wpif", long: []string{
	"--with", "--with-editable", "--with-requirements", "--python", "--package",
	"--directory", "--project", "--env-file", "--extra", "--group", "--only-group",
	"--index", "--default-index", "--index-url", "--extra-index-url", "--find-links",
	"--config-file", "--cache-dir", "--color", "--python-preference"}}

// uvHop: `uv run [-m] X` and `uv tool run X` (= uvx).
func uvHop(_ string, args []string) hop {
	i := uvRunOpts.operand(args)
	if i >= len(args) {
		return stop()
	}
	switch args[i] {
	case "run":
		rest := args[i+1:]
		module := false
		j, _ := uvRunOpts.scan(rest, func(s byte, l, _ string) bool {
			module = module || s == 'm' || l == "--module"
			return true
		})
		if module && j < len(rest) {
			return named(rest[j], "module of uv run")
		}
		return next(rest[j:], "looked through uv run")
	case "tool":
		if i+1 < len(args) && args[i+1] == "run" {
			return uvxHop("uv tool run", args[i+2:])
		}
	}
	return stop()
}

// script is what interpreters return for a script operand.
func script(self string, args []string, name string) hop {
	return hop{kind: hopNext, next: args, nextName: name, why: "script of " + self}
}

var pythonOpts = optSpec{short: "WXmc", long: []string{"--check-hash-based-pycs"}}

func pythonHop(self string, args []string) hop {
	var module string
	i, stopped := pythonOpts.scan(args, func(s byte, _, v string) bool {
		switch s {
		case 'm':
			module = v
			return false
		case 'c':
			return false
		}
		return true
	})
	switch {
	case module != "":
		return named(module, "module of "+self)
	case stopped, i >= len(args), args[i] == "-":
		return stop() // inline code, the REPL, or a script on stdin
	}
	return script(self, args[i:], "")
}

var nodeOpts = optSpec{short: "rCep", long: []string{
	"--require", "--import", "--loader", "--experimental-loader", "--conditions",
	"--input-type", "--eval", "--print", "--env-file", "--title", "--tsconfig"}}

func nodeHop(self string, args []string) hop {
	i, stopped := nodeOpts.scan(args, func(s byte, l, _ string) bool {
		return s != 'e' && s != 'p' && l != "--eval" && l != "--print"
	})
	if stopped || i >= len(args) || args[i] == "-" {
		return stop()
	}
	return script(self, args[i:], nodeScriptName(args[i]))
}

// looksLikeFile tells a script operand from a package.json script or a
// subcommand (`bun dev`, `deno task build`), which keep the runner's name.
func looksLikeFile(s string) bool {
	return strings.ContainsAny(s, "./")
}

func bunHop(self string, args []string) hop {
	i := nodeOpts.operand(args)
	if i >= len(args) {
		return stop()
	}
	switch args[i] {
	case "x":
		return npxLike("looked through bun x", args[i+1:])
	case "run":
		rest := args[i+1:]
		i = nodeOpts.operand(rest)
		args = rest
	}
	if i < len(args) && looksLikeFile(args[i]) {
		return script(self, args[i:], nodeScriptName(args[i]))
	}
	return stop()
}

var denoOpts = optSpec{short: "c", long: []string{"--config", "--import-map", "--lock", "--cert", "--location", "--seed", "--env-file"}}

func denoHop(self string, args []string) hop {
	i := denoOpts.operand(args)
	if i < len(args) && args[i] == "run" {
		args = args[i+1:]
		i = denoOpts.operand(args)
	}
	if i < len(args) && looksLikeFile(args[i]) {
		return script(self, args[i:], nodeScriptName(args[i]))
	}
	return stop()
}

var rubyOpts = optSpec{short: "IrCEe"}

func rubyHop(self string, args []string) hop {
	i, stopped := rubyOpts.scan(args, func(s byte, _, _ string) bool { return s != 'e' })
	if stopped || i >= len(args) || args[i] == "-" {
		return stop()
	}
	return script(self, args[i:], "")
}

var perlOpts = optSpec{short: "IeE"}

func perlHop(self string, args []string) hop {
	i, stopped := perlOpts.scan(args, func(s byte, _, _ string) bool { return s != 'e' && s != 'E' })
	if stopped || i >= len(args) || args[i] == "-" {
		return stop()
	}
	return script(self, args[i:], "")
}

// shellSpec is how a shell takes options: for most, -c is a flag and the
// command string is the first operand; fish, nu and xonsh take it as the
// option's value.
type shellSpec struct {
	opts   optSpec
	cValue bool
}

// shellSpecs lists the shells that can run a script or a command string.
// Which names count as "a shell in front" is Options.Shells, not this.
var shellSpecs = map[string]shellSpec{
	"sh":     {opts: optSpec{short: "oO"}},
	"bash":   {opts: optSpec{short: "oO", long: []string{"--rcfile", "--init-file"}}},
	"zsh":    {opts: optSpec{short: "o"}},
	"dash":   {opts: optSpec{short: "o"}},
	"ksh":    {opts: optSpec{short: "oT"}},
	"mksh":   {opts: optSpec{short: "oT"}},
	"csh":    {opts: optSpec{}},
	"tcsh":   {opts: optSpec{}},
	"elvish": {opts: optSpec{long: []string{"--rc", "--sock", "--db"}}},
	"fish": {opts: optSpec{short: "cCdfo", long: []string{
		"--command", "--init-command", "--debug", "--features", "--debug-output", "--profile"}}, cValue: true},
	"nu": {opts: optSpec{short: "cI", long: []string{
		"--commands", "--config", "--env-config", "--plugin-config", "--log-level", "--include-path"}}, cValue: true},
	"xonsh": {opts: optSpec{short: "cD", long: []string{"--rc"}}, cValue: true},
}

func shellHop(self string, args []string) hop {
	spec := shellSpecs[self]
	sawC, stdin := false, false
	var cmd string
	i, _ := spec.opts.scan(args, func(s byte, l, v string) bool {
		switch {
		case s == 'c' || l == "--command" || l == "--commands":
			sawC, cmd = true, v
		case s == 's':
			stdin = true
		}
		return true
	})
	switch {
	case sawC:
		if !spec.cValue {
			cmd = ""
			if i < len(args) {
				cmd = args[i]
			}
		}
		return hop{kind: hopShellC, cmd: cmd, why: self + " -c"}
	case stdin, i >= len(args):
		return stop() // an interactive shell: no program
	}
	h := script(self, args[i:], "")
	h.script = true
	return h
}
