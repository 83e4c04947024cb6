// Package hooks holds the shell snippets (zsh, bash, fish) that nudge the
// daemon on every command and prompt, and the herdr plugin manifest that
// starts it (a template, rendered for the repository root and for `init`).
// They are real files beside this one, so they can be read and
// shellchecked, and are embedded here for `herdrtabrenamer init`. Each
// snippet exports HERDRTABRENAMER_HOOKS=<shell>:<pid>, which is how
// `herdrtabrenamer status` tells that the shell it runs in has its hooks
// loaded (and not only a shell it was started from).
package hooks

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/quote"
)

//go:embed herdrtabrenamer.zsh herdrtabrenamer.bash herdrtabrenamer.fish herdr-plugin.toml.tmpl
var files embed.FS

// RepoBinary is where the repository's manifest builds and runs the binary:
// herdr resolves a relative program path with a "/" against the plugin root
// (docs/herdr.md §10).
const RepoBinary = "bin/herdrtabrenamer"

// placeholder stands for the binary's path in every embedded file. In the
// snippets it sits inside single quotes, so the files stay valid scripts.
const placeholder = "@HERDRTABRENAMER_BIN@"

// Lines marking the preexec parts of a snippet, cut out for --no-preexec.
const (
	preexecBegin = "# >>> preexec"
	preexecEnd   = "# <<< preexec"
)

// Shells lists the shells Snippet knows, in the order help texts name them.
var Shells = []string{"zsh", "bash", "fish"}

// Snippet returns the hook for shell with bin (the herdrtabrenamer binary)
// quoted for that shell. Without preexec, only the prompt hook is kept.
func Snippet(shell, bin string, preexec bool) (string, error) {
	if bin == "" {
		return "", fmt.Errorf("hook for %s: empty binary path", shell)
	}
	if !slices.Contains(Shells, shell) {
		return "", fmt.Errorf("unknown shell %q: want %s", shell, strings.Join(Shells, ", "))
	}
	quoted := quote.Shell(shell, bin)
	name := "herdrtabrenamer." + shell
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("read embedded %s: %w", name, err)
	}
	text, err := preexecBlocks(string(b), preexec)
	if err != nil {
		return "", fmt.Errorf("embedded %s: %w", name, err)
	}
	return fill(name, text, "'"+placeholder+"'", quoted)
}

// PluginManifest returns herdr-plugin.toml with bin in every command, for
// `init herdr-plugin DIR`: the binary is already built, so no [[build]].
func PluginManifest(bin string) (string, error) {
	if bin == "" {
		return "", fmt.Errorf("herdr plugin manifest: empty binary path")
	}
	if !utf8.ValidString(bin) {
		// TOML files are UTF-8; such a path cannot be written into one.
		return "", fmt.Errorf("herdr plugin manifest: binary path %q is not valid UTF-8", bin)
	}
	return renderManifest(bin, false)
}

// renderManifest fills the one manifest template both manifests come from.
func renderManifest(bin string, build bool) (string, error) {
	const name = "herdr-plugin.toml.tmpl"
	tmpl, err := template.New(name).Option("missingkey=error").ParseFS(files, name)
	if err != nil {
		return "", fmt.Errorf("parse embedded %s: %w", name, err)
	}
	var out strings.Builder
	data := struct {
		Bin   string
		Build bool
	}{quote.TOML(bin), build}
	if err := tmpl.Execute(&out, data); err != nil {
		return "", fmt.Errorf("render embedded %s: %w", name, err)
	}
	return out.String(), nil
}

// fill replaces the quoted placeholder, and fails if any placeholder is left
// in a form it did not expect, so a template typo cannot ship a literal
// "@HERDRTABRENAMER_BIN@" to users.
func fill(name, text, quotedPlaceholder, value string) (string, error) {
	if !strings.Contains(text, quotedPlaceholder) {
		return "", fmt.Errorf("embedded %s has no %s", name, quotedPlaceholder)
	}
	text = strings.ReplaceAll(text, quotedPlaceholder, value)
	// Check only the template's own text: the path itself may contain anything.
	if rest := strings.ReplaceAll(text, value, ""); strings.Contains(rest, placeholder) {
		return "", fmt.Errorf("embedded %s has %s outside its quotes", name, placeholder)
	}
	return text, nil
}

// preexecBlocks removes the preexecBegin and preexecEnd marker lines, and
// without keep also every line between them.
func preexecBlocks(text string, keep bool) (string, error) {
	var out strings.Builder
	in := false
	for i, line := range strings.SplitAfter(text, "\n") {
		switch strings.TrimSpace(line) {
		case preexecBegin:
			if in {
				return "", fmt.Errorf("line %d: nested %q", i+1, preexecBegin)
			}
			in = true
			continue
		case preexecEnd:
			if !in {
				return "", fmt.Errorf("line %d: %q without %q", i+1, preexecEnd, preexecBegin)
			}
			in = false
			continue
		}
		if !in || keep {
			out.WriteString(line)
		}
	}
	if in {
		return "", fmt.Errorf("unterminated %q", preexecBegin)
	}
	return out.String(), nil
}
