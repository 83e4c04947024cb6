// Package completion writes shell completion scripts (bash, zsh, fish)
// from a kong command-line model at run time, so a new command or flag is
// completed as soon as it exists, with no script to regenerate by hand.
// Positional arguments complete from their enum, or from a `complete:"a,b"`
// tag where the command checks the value itself.
package completion

import (
	"fmt"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/quote"
)

// Shells are the shells Script knows.
var Shells = []string{"zsh", "bash", "fish"}

// Script renders the completion script for shell from app.
func Script(app *kong.Application, shell string) (string, error) {
	root := completionTree(app)
	switch shell {
	case "bash":
		return bashCompletion(root), nil
	case "zsh":
		return zshCompletion(root), nil
	case "fish":
		return fishCompletion(root), nil
	}
	return "", fmt.Errorf("completion: unknown shell %q (want %s)", shell, strings.Join(Shells, ", "))
}

// compNode is a command as the completion scripts see it: what can follow
// it. Flags include the ones inherited from parent commands, because kong
// accepts a parent's flags after a subcommand.
type compNode struct {
	name  string
	path  []string // command words from the root, e.g. ["run"]
	help  string
	flags []compFlag
	// inherited counts the leading flags that come from parent commands.
	inherited int
	subs      []*compNode
	args      []compArg
}

type compFlag struct {
	names      []string // "--socket", aliases, "--no-x", "-h"
	help       string
	takesValue bool
	repeatable bool
	enum       []string
	file       bool   // complete file names as the value
	label      string // what the value is, e.g. PATH
}

type compArg struct {
	name     string
	help     string
	optional bool
	enum     []string
	file     bool
}

// completionTree walks app with kong.Visit and keeps what completion needs:
// visible commands, flags and positional arguments.
func completionTree(app *kong.Application) *compNode {
	nodes := map[*kong.Node]*compNode{}
	var root *compNode
	_ = kong.Visit(app, func(v kong.Visitable, next kong.Next) error {
		var n *kong.Node
		switch v := v.(type) {
		case *kong.Application:
			n = v.Node
		case *kong.Node:
			n = v
		}
		if n == nil || n.Hidden || (n.Type != kong.ApplicationNode && n.Type != kong.CommandNode) {
			return next(nil)
		}
		c := &compNode{name: n.Name, help: compFirstLine(n.Help)}
		if p := nodes[n.Parent]; p != nil && n.Type == kong.CommandNode {
			c.path = append(slices.Clone(p.path), n.Name)
			c.flags = slices.Clone(p.flags)
			c.inherited = len(p.flags)
			p.subs = append(p.subs, c)
		}
		for _, f := range n.Flags {
			if !f.Hidden {
				c.flags = append(c.flags, newCompFlag(f))
			}
		}
		for _, a := range n.Positional {
			c.args = append(c.args, compArg{
				name: a.Name, help: compFirstLine(a.Help), optional: !a.Required,
				enum: argValues(a), file: isFileValue(a, ""),
			})
		}
		nodes[n] = c
		if n.Type == kong.ApplicationNode {
			root = c
		}
		return next(nil)
	})
	return root
}

func newCompFlag(f *kong.Flag) compFlag {
	cf := compFlag{
		names:      []string{"--" + f.Name},
		help:       compFirstLine(f.Help),
		takesValue: !f.IsBool() && !f.IsCounter(),
		repeatable: f.IsSlice() || f.IsMap() || f.IsCounter(),
		enum:       enumValues(f.Value),
		file:       isFileValue(f.Value, f.PlaceHolder),
		label:      f.PlaceHolder,
	}
	if cf.label == "" {
		cf.label = strings.ToUpper(f.Name)
	}
	for _, a := range f.Aliases {
		cf.names = append(cf.names, "--"+a)
	}
	switch neg := f.Tag.Negatable; neg {
	case "":
	case "_": // kong's marker for the default --no-<flag>
		cf.names = append(cf.names, "--no-"+f.Name)
	default:
		cf.names = append(cf.names, "--"+neg)
	}
	if f.Short != 0 {
		cf.names = append(cf.names, "-"+string(f.Short))
	}
	return cf
}

// argValues are a positional argument's enum, else its complete tag.
func argValues(v *kong.Value) []string {
	if vals := enumValues(v); vals != nil {
		return vals
	}
	if c := v.Tag.Get("complete"); c != "" {
		return strings.Split(c, ",")
	}
	return nil
}

func enumValues(v *kong.Value) []string {
	if v.Enum == "" {
		return nil
	}
	return v.EnumSlice()
}

// isFileValue guesses that a value is a file name from kong's path types or
// a PATH placeholder, which is how this CLI spells file flags.
func isFileValue(v *kong.Value, placeholder string) bool {
	switch v.Tag.Type {
	case "path", "existingfile", "existingdir", "filecontent":
		return true
	}
	return placeholder == "PATH"
}

func compFirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// walk calls fn for n and every command below it, parents first.
func (n *compNode) walk(fn func(*compNode)) {
	fn(n)
	for _, s := range n.subs {
		s.walk(fn)
	}
}

// key names a command in the scripts' lookup tables: its words joined by
// spaces, "" for the root.
func (n *compNode) key() string { return strings.Join(n.path, " ") }

// funcName is the zsh function for n: _herdrtabrenamer, _herdrtabrenamer_run.
func (n *compNode) funcName(prog string) string {
	parts := append([]string{"_" + prog}, n.path...)
	return strings.ReplaceAll(strings.Join(parts, "_"), "-", "_")
}

// bashCompletion renders a bash script: lookup tables from the model and one
// function that finds the command path in COMP_WORDS, then offers flags,
// flag values, subcommands or positional values. It needs only bash itself,
// not the bash-completion package.
func bashCompletion(root *compNode) string {
	prog := root.name
	fn := "_" + strings.ReplaceAll(prog, "-", "_")
	var b strings.Builder
	fmt.Fprintf(&b, `# bash completion for %[1]s, generated from its command line model.
# Load it with: eval "$(%[1]s completion bash)"   (e.g. in ~/.bashrc)

# %[2]s_flags KEY: the flags of a command.
%[2]s_flags() {
	case $1 in
`, prog, fn)
	bashFlagCases(&b, root)
	fmt.Fprintf(&b, `	esac
}

# %[1]s_subs KEY: the subcommands of a command.
%[1]s_subs() {
	case $1 in
`, fn)
	bashSubCases(&b, root)
	fmt.Fprintf(&b, `	esac
}

# %[1]s_value "KEY FLAG": how a flag's value is completed: "=" then words
# (an enum), "@file", or "@any"; nothing for a flag without a value.
%[1]s_value() {
	case $1 in
`, fn)
	bashValueCases(&b, root)
	fmt.Fprintf(&b, `	esac
}

# %[1]s_arg "KEY N": how the Nth positional argument is completed.
%[1]s_arg() {
	case $1 in
`, fn)
	bashArgCases(&b, root)
	fmt.Fprintf(&b, bashDriver, fn, prog)
	return b.String()
}

// bashCase writes one arm of a bash case statement that echoes words.
func bashCase(b *strings.Builder, pattern, words string) {
	fmt.Fprintf(b, "\t%s) echo %s ;;\n", quote.POSIX(pattern), quote.POSIX(words))
}

// bashFlagCases maps each command's key to its flags.
func bashFlagCases(b *strings.Builder, root *compNode) {
	root.walk(func(n *compNode) {
		var names []string
		for _, f := range n.flags {
			names = append(names, f.names...)
		}
		bashCase(b, n.key(), strings.Join(names, " "))
	})
}

// bashSubCases maps each command with subcommands to their names.
func bashSubCases(b *strings.Builder, root *compNode) {
	root.walk(func(n *compNode) {
		if len(n.subs) == 0 {
			return
		}
		var names []string
		for _, s := range n.subs {
			names = append(names, s.name)
		}
		bashCase(b, n.key(), strings.Join(names, " "))
	})
}

// bashValueCases maps "KEY FLAG" of each flag that takes a value to how
// the value is completed.
func bashValueCases(b *strings.Builder, root *compNode) {
	root.walk(func(n *compNode) {
		for _, f := range n.flags {
			if !f.takesValue {
				continue
			}
			for _, name := range f.names {
				bashCase(b, strings.TrimSpace(n.key()+" "+name), bashValueKind(f.enum, f.file))
			}
		}
	})
}

// bashArgCases maps "KEY N" of each positional argument to how it is
// completed.
func bashArgCases(b *strings.Builder, root *compNode) {
	root.walk(func(n *compNode) {
		for i, a := range n.args {
			bashCase(b, fmt.Sprintf("%s %d", n.key(), i), bashValueKind(a.enum, a.file))
		}
	})
}

// bashDriver ends the bash script: the function bash calls, which walks
// the words typed so far through the tables above (%[1]s: its name, %[2]s:
// the program's).
const bashDriver = `	esac
}

# %[1]s_offer KIND CUR: fill COMPREPLY from a value kind.
%[1]s_offer() {
	case $1 in
	=*) COMPREPLY=($(compgen -W "${1#=}" -- "$2")) ;;
	@file) COMPREPLY=($(compgen -f -- "$2")) ;;
	*) COMPREPLY=() ;;
	esac
}

%[1]s() {
	local cur=${COMP_WORDS[COMP_CWORD]} key="" flag="" w w2 sub kind
	local i skip=0 npos=0 last=$COMP_CWORD
	# bash splits --flag=value into "--flag" "=" "value".
	if [[ $cur == "=" ]]; then
		flag=${COMP_WORDS[COMP_CWORD-1]} cur="" last=$((COMP_CWORD - 1))
	elif ((COMP_CWORD >= 2)) && [[ ${COMP_WORDS[COMP_CWORD-1]} == "=" ]]; then
		flag=${COMP_WORDS[COMP_CWORD-2]} last=$((COMP_CWORD - 2))
	fi
	# Find the command path (key) and count positional arguments, stepping
	# over flag values.
	for ((i = 1; i < last; i++)); do
		w=${COMP_WORDS[i]}
		if ((skip)); then
			[[ $w == "=" ]] || skip=0
			continue
		fi
		case $w in
		-*)
			if [[ ${COMP_WORDS[i+1]} == "=" ]] || [[ -n $(%[1]s_value "${key:+$key }$w") ]]; then
				skip=1
			fi
			;;
		*)
			sub=""
			for w2 in $(%[1]s_subs "$key"); do
				[[ $w2 == "$w" ]] && sub=$w
			done
			if [[ -n $sub ]] && ((npos == 0)); then
				key=${key:+$key }$sub
			else
				npos=$((npos + 1))
			fi
			;;
		esac
	done
	if [[ -z $flag ]] && ((last >= 2)) && [[ ${COMP_WORDS[last-1]} == -* ]]; then
		flag=${COMP_WORDS[last-1]}
		# A flag without a value (e.g. --apply) leaves cur free.
		[[ -n $(%[1]s_value "${key:+$key }$flag") ]] || flag=""
	fi
	if [[ -n $flag ]]; then
		%[1]s_offer "$(%[1]s_value "${key:+$key }$flag")" "$cur"
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(%[1]s_flags "$key")" -- "$cur"))
		return
	fi
	if ((npos == 0)) && [[ -n $(%[1]s_subs "$key") ]]; then
		COMPREPLY=($(compgen -W "$(%[1]s_subs "$key")" -- "$cur"))
		return
	fi
	%[1]s_offer "$(%[1]s_arg "$key $npos")" "$cur"
}

complete -F %[1]s %[2]s
`

func bashValueKind(enum []string, file bool) string {
	switch {
	case len(enum) > 0:
		return "=" + strings.Join(enum, " ")
	case file:
		return "@file"
	}
	return "@any"
}

// zshHelp escapes a description for the [...] part of an _arguments spec.
func zshHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(s)
}

// zshWord escapes a message or argument name, where : ends the field.
func zshWord(s string) string {
	return strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(s)
}

// zshAction is the completion action for a value.
func zshAction(enum []string, file bool) string {
	switch {
	case len(enum) > 0:
		vals := make([]string, len(enum))
		for i, v := range enum {
			vals[i] = strings.NewReplacer(`\`, `\\`, ` `, `\ `, `(`, `\(`, `)`, `\)`, `:`, `\:`).Replace(v)
		}
		return "(" + strings.Join(vals, " ") + ")"
	case file:
		return "_files"
	}
	return " "
}

// zshFlagSpecs renders flags as _arguments specs, one per line.
func zshFlagSpecs(flags []compFlag) []string {
	var out []string
	for _, f := range flags {
		help := "[" + zshHelp(f.help) + "]"
		value := ""
		if f.takesValue {
			value = ":" + zshWord(f.label) + ":" + zshAction(f.enum, f.file)
		}
		for _, name := range f.names {
			spec := name
			if f.takesValue && strings.HasPrefix(name, "--") {
				spec += "=" // accept --flag=value and --flag value
			}
			if f.repeatable {
				spec = "*" + spec
			} else if len(f.names) > 1 {
				// The spellings of one flag exclude each other.
				spec = "(" + strings.Join(f.names, " ") + ")" + spec
			}
			out = append(out, quote.POSIX(spec+help+value))
		}
	}
	return out
}

// zshCompletion renders a zsh script with one _arguments function per
// command. It works both from $fpath (as _herdrtabrenamer) and sourced
// after compinit.
func zshCompletion(root *compNode) string {
	prog := root.name
	var b strings.Builder
	fmt.Fprintf(&b, `#compdef %[1]s
# zsh completion for %[1]s, generated from its command line model.
# Load it after compinit with: source <(%[1]s completion zsh)
# or save it as _%[1]s in a directory on $fpath.

`, prog)
	root.walk(func(n *compNode) {
		fn := n.funcName(prog)
		fmt.Fprintf(&b, "%s() {\n", fn)
		specs := zshFlagSpecs(n.flags)
		if len(n.subs) > 0 {
			b.WriteString("\tlocal curcontext=$curcontext state line ret=1\n\ttypeset -A opt_args\n")
			specs = append(specs, `': :->command'`, `'*:: :->args'`)
			fmt.Fprintf(&b, "\t_arguments -C -s \\\n\t\t%s && ret=0\n", strings.Join(specs, " \\\n\t\t"))
			b.WriteString("\tcase $state in\n\tcommand)\n\t\tlocal -a commands=(\n")
			for _, s := range n.subs {
				fmt.Fprintf(&b, "\t\t\t%s\n", quote.POSIX(strings.ReplaceAll(s.name, ":", `\:`)+":"+s.help))
			}
			b.WriteString("\t\t)\n\t\t_describe -t commands command commands && ret=0\n\t\t;;\n\targs)\n")
			b.WriteString("\t\tcurcontext=${curcontext%:*:*}:" + prog + "-$words[1]:\n\t\tcase $words[1] in\n")
			for _, s := range n.subs {
				fmt.Fprintf(&b, "\t\t%s) %s && ret=0 ;;\n", quote.POSIX(s.name), s.funcName(prog))
			}
			b.WriteString("\t\tesac\n\t\t;;\n\tesac\n\treturn ret\n}\n\n")
			return
		}
		for i, a := range n.args {
			colon := ":"
			if a.optional {
				colon = "::"
			}
			specs = append(specs, quote.POSIX(fmt.Sprintf("%d%s%s:%s", i+1, colon, zshWord(a.name), zshAction(a.enum, a.file))))
		}
		if len(specs) == 0 {
			b.WriteString("\t_message 'no arguments'\n}\n\n")
			return
		}
		fmt.Fprintf(&b, "\t_arguments -s \\\n\t\t%s\n}\n\n", strings.Join(specs, " \\\n\t\t"))
	})
	fn := root.funcName(prog)
	fmt.Fprintf(&b, `if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	%[1]s "$@"
else
	compdef %[1]s %[2]s
fi
`, fn, prog)
	return b.String()
}

// fishCompletion renders `complete` lines. A command's own flags apply once
// its path has been typed; root flags apply everywhere, as in kong.
func fishCompletion(root *compNode) string {
	prog := root.name
	var b strings.Builder
	fmt.Fprintf(&b, "# fish completion for %[1]s, generated from its command line model.\n# Load it with: %[1]s completion fish | source\n\ncomplete -c %[1]s -f\n", prog)
	root.walk(func(n *compNode) {
		cond := ""
		if expr := fishSeen(n); expr != "" {
			cond = " -n " + quote.Fish(expr)
		}
		// Inherited flags were written for the parent already, unconditioned
		// by this command.
		for _, f := range n.flags[n.inherited:] {
			b.WriteString("complete -c " + prog + cond)
			for _, name := range f.names {
				if strings.HasPrefix(name, "--") {
					b.WriteString(" -l " + quote.Fish(strings.TrimPrefix(name, "--")))
				} else {
					b.WriteString(" -s " + quote.Fish(strings.TrimPrefix(name, "-")))
				}
			}
			switch {
			case f.takesValue && len(f.enum) > 0:
				b.WriteString(" -x -a " + quote.Fish(strings.Join(f.enum, " ")))
			case f.takesValue && f.file:
				b.WriteString(" -r -F")
			case f.takesValue:
				b.WriteString(" -x")
			}
			b.WriteString(" -d " + quote.Fish(f.help) + "\n")
		}
		subCond := fishSubCondition(n)
		for _, s := range n.subs {
			fmt.Fprintf(&b, "complete -c %s%s -a %s -d %s\n", prog, subCond, quote.Fish(s.name), quote.Fish(s.help))
		}
		for _, a := range n.args {
			switch {
			case len(a.enum) > 0:
				fmt.Fprintf(&b, "complete -c %s%s -a %s -d %s\n", prog, cond, quote.Fish(strings.Join(a.enum, " ")), quote.Fish(a.help))
			case a.file:
				fmt.Fprintf(&b, "complete -c %s%s -F\n", prog, cond)
			}
		}
	})
	return b.String()
}

// fishSeen is a fish condition true once n's command words are typed; ""
// for the root.
func fishSeen(n *compNode) string {
	var parts []string
	for _, w := range n.path {
		parts = append(parts, "__fish_seen_subcommand_from "+w)
	}
	return strings.Join(parts, "; and ")
}

// fishSubCondition offers n's subcommands while none of them is typed yet.
func fishSubCondition(n *compNode) string {
	if len(n.path) == 0 {
		return " -n __fish_use_subcommand"
	}
	var names []string
	for _, s := range n.subs {
		names = append(names, s.name)
	}
	return " -n " + quote.Fish(fishSeen(n)+"; and not __fish_seen_subcommand_from "+strings.Join(names, " "))
}
