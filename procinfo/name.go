package procinfo

import "strings"

// cleanName turns an argv[0] or a script path into a display name: the
// basename without the leading "-" of a login shell or the "." of a NixOS
// wrapped binary, and without "-wrapped"/"-wrap" suffixes (NixOS
// wrapProgram, possibly stacked). wrapped reports whether a suffix went.
func cleanName(s string) (name string, wrapped bool) {
	base := s[strings.LastIndexByte(s, '/')+1:]
	name = strings.TrimLeft(base, ".-")
	for {
		switch {
		case strings.HasSuffix(name, "-wrapped"):
			name = name[:len(name)-len("-wrapped")]
		case strings.HasSuffix(name, "-wrap"):
			name = name[:len(name)-len("-wrap")]
		default:
			if name == "" {
				// "-" or "..." alone: better the odd name than none.
				return base, wrapped
			}
			return name, wrapped
		}
		wrapped = true
		name = strings.TrimLeft(name, ".-")
	}
}

// isAssignment reports whether s is a shell/env variable assignment
// (NAME=value), which env, sudo and shells allow before the command.
func isAssignment(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := s[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// nodeScriptName names a script run by node (or bun, tsx, ...). Package
// managers hide the real tool behind paths like
// node_modules/.bin/vite or node_modules/vite/bin/vite.js, and global
// installs behind .../lib/node_modules/npm/bin/npm-cli.js, so the bin or
// package name is what a person would call it; a plain `node script.js`
// keeps its file name.
func nodeScriptName(path string) string {
	if k := strings.LastIndex(path, "node_modules/"); k >= 0 {
		rest := path[k+len("node_modules/"):]
		if bin, ok := strings.CutPrefix(rest, ".bin/"); ok && bin != "" && !strings.Contains(bin, "/") {
			return stripJSExt(bin)
		}
		pkg, after, ok := strings.Cut(rest, "/")
		if strings.HasPrefix(pkg, "@") && ok {
			// A scoped package: @scope/name/...
			pkg, after, ok = strings.Cut(after, "/")
		}
		if pkg != "" && ok {
			if bin, isBin := strings.CutPrefix(after, "bin/"); isBin && bin != "" && !strings.Contains(bin, "/") {
				stem := stripJSExt(bin)
				if pkg == "npm" {
					// npm ships npm-cli.js and npx-cli.js.
					stem = strings.TrimSuffix(stem, "-cli")
				}
				return stem
			}
			return pkg
		}
	}
	base := path[strings.LastIndexByte(path, '/')+1:]
	if dir := path[:max(0, len(path)-len(base)-1)]; strings.HasSuffix(dir, "/bin") || dir == "bin" {
		// An installed command (/usr/local/bin/claude, .../vite/bin/vite.js).
		return stripJSExt(base)
	}
	return base
}

// stripJSExt drops the extensions JavaScript entry points carry.
func stripJSExt(s string) string {
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".mts"} {
		if t, ok := strings.CutSuffix(s, ext); ok && t != "" {
			return t
		}
	}
	return s
}

// npmPackageName turns an npx/bunx/pnpm dlx package spec into a command
// name: create-vite@latest -> create-vite, @scope/tool@1 -> tool,
// github:user/repo -> repo.
func npmPackageName(spec string) string {
	spec = strings.TrimPrefix(spec, "npm:")
	at := strings.IndexByte(spec, '@')
	if at == 0 {
		// @scope/name@version: the version '@' comes after the slash.
		if slash := strings.IndexByte(spec, '/'); slash > 0 {
			if v := strings.IndexByte(spec[slash:], '@'); v > 0 {
				spec = spec[:slash+v]
			}
		}
	} else if at > 0 && !strings.Contains(spec[:at], ":") {
		spec = spec[:at]
	}
	spec = strings.TrimSuffix(strings.TrimRight(spec, "/"), ".git")
	if i := strings.LastIndexAny(spec, "/:"); i >= 0 && i < len(spec)-1 {
		spec = spec[i+1:]
	}
	return spec
}

// pyPackageName turns a uvx package spec into a command name:
// ruff@0.5 -> ruff, 'httpie[socks]>=3' -> httpie.
func pyPackageName(spec string) string {
	if i := strings.IndexAny(spec, "@=<>~![; "); i > 0 {
		spec = spec[:i]
	}
	return spec
}

// nixInstallableName names what `nix run INSTALLABLE` will run:
// nixpkgs#btop -> btop, nixpkgs#python3Packages.httpie -> httpie,
// github:owner/tool -> tool. "" when nothing tells (a bare "." flake).
func nixInstallableName(inst string) string {
	if _, frag, ok := strings.Cut(inst, "#"); ok {
		frag, _, _ = strings.Cut(frag, "^") // output selection: btop^out
		if i := strings.LastIndexByte(frag, '.'); i >= 0 {
			frag = frag[i+1:]
		}
		return strings.Trim(frag, `"`)
	}
	inst, _, _ = strings.Cut(inst, "?")
	inst = strings.TrimRight(inst, "/")
	if i := strings.LastIndexAny(inst, "/:"); i >= 0 {
		inst = inst[i+1:]
	}
	if inst == "." || inst == ".." {
		return ""
	}
	return inst
}

// splitCommand splits the first simple command of a shell command string
// (what `sh -c` runs) into words: quotes and backslashes are honoured,
// and a command ends at an operator (; | & && || parentheses, braces,
// redirections), a newline or a comment. Leading variable assignments are
// dropped, and so are commands that only set the stage (`cd web && make`
// runs make). It is not a shell parser, only enough to name the program.
func splitCommand(s string) []string {
	var w commandWords
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\'':
			i = w.singleQuoted(s, i)
		case '"':
			i = w.doubleQuoted(s, i)
		case '\\':
			i = w.escaped(s, i)
		case ' ', '\t':
			w.flush()
		case '{', '}':
			if w.inWord {
				w.cur.WriteByte(c) // ${VAR}
				continue
			}
			if w.done() {
				return w.words
			}
		case '\n', ';', '|', '&', '(', ')', '<', '>':
			w.flush()
			if w.done() {
				return w.words
			}
		case '#':
			if !w.inWord {
				w.flush()
				w.done()
				return w.words
			}
			w.cur.WriteByte(c)
		default:
			w.cur.WriteByte(c)
			w.inWord = true
		}
	}
	w.flush()
	w.done()
	return w.words
}

// commandWords are the words splitCommand has read so far.
type commandWords struct {
	words  []string
	cur    strings.Builder // the word being read
	inWord bool            // cur holds a word, maybe an empty one ('')
}

// flush ends the word being read, if any.
func (w *commandWords) flush() {
	if w.inWord {
		w.words = append(w.words, w.cur.String())
		w.cur.Reset()
		w.inWord = false
	}
}

// done reports whether the words so far make the command to name;
// if not they are dropped and parsing goes on with the next command.
func (w *commandWords) done() bool {
	for len(w.words) > 0 && (isAssignment(w.words[0]) || w.words[0] == "!") {
		w.words = w.words[1:]
	}
	if len(w.words) > 0 && stageSetters[w.words[0]] {
		w.words = w.words[:0]
	}
	return len(w.words) > 0
}

// singleQuoted reads the single-quoted text opening at s[i], where nothing
// is special, up to its closing quote or the end; it returns the index of
// that quote.
func (w *commandWords) singleQuoted(s string, i int) int {
	end := strings.IndexByte(s[i+1:], '\'')
	if end < 0 {
		end = len(s) - i - 1
	}
	w.cur.WriteString(s[i+1 : i+1+end])
	w.inWord = true
	return i + end + 1
}

// doubleQuoted reads the double-quoted text opening at s[i], where a
// backslash escapes only " \ $ and `, up to its closing quote or the end;
// it returns the index of that quote.
func (w *commandWords) doubleQuoted(s string, i int) int {
	i++
	for ; i < len(s) && s[i] != '"'; i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
			i++
		}
		w.cur.WriteByte(s[i])
	}
	w.inWord = true
	return i
}

// escaped reads the character after the backslash at s[i]; a backslash
// before a newline joins lines. It returns the index of the character.
func (w *commandWords) escaped(s string, i int) int {
	if i+1 < len(s) {
		i++
		if s[i] != '\n' {
			w.cur.WriteByte(s[i])
			w.inWord = true
		}
	}
	return i
}

// stageSetters are builtins that prepare for the real command rather than
// being it.
var stageSetters = map[string]bool{
	"cd": true, "pushd": true, "export": true, "set": true, "unset": true,
	"source": true, ".": true, ":": true, "true": true, "umask": true,
	"ulimit": true, "shopt": true, "trap": true, "alias": true,
}
