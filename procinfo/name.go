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
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	// done reports whether the words so far make the command to name;
	// if not they are dropped and parsing goes on with the next command.
	done := func() bool {
		for len(words) > 0 && (isAssignment(words[0]) || words[0] == "!") {
			words = words[1:]
		}
		if len(words) > 0 && stageSetters[words[0]] {
			words = words[:0]
		}
		return len(words) > 0
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				end = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			inWord = true
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
					inWord = true
				}
			}
		case ' ', '\t':
			flush()
		case '{', '}':
			if inWord {
				cur.WriteByte(c) // ${VAR}
				continue
			}
			if done() {
				return words
			}
		case '\n', ';', '|', '&', '(', ')', '<', '>':
			flush()
			if done() {
				return words
			}
		case '#':
			if !inWord {
				flush()
				done()
				return words
			}
			cur.WriteByte(c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	done()
	return words
}

// stageSetters are builtins that prepare for the real command rather than
// being it.
var stageSetters = map[string]bool{
	"cd": true, "pushd": true, "export": true, "set": true, "unset": true,
	"source": true, ".": true, ":": true, "true": true, "umask": true,
	"ulimit": true, "shopt": true, "trap": true, "alias": true,
}
