package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/herdrtabrenamer/herdrtabrenamer/completion"
)

// TestCompletionScriptsCoverModel checks the scripts of the real grammar
// name every visible command and flag, and offer init's targets.
func TestCompletionScriptsCoverModel(t *testing.T) {
	parser, _, _, err := newParser(nil, &bytes.Buffer{}, &bytes.Buffer{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	app := parser.Model
	var words []string
	_ = kong.Visit(app, func(v kong.Visitable, next kong.Next) error {
		switch n := v.(type) {
		case *kong.Node:
			if n.Hidden {
				return nil // nor its flags
			}
			if n.Type == kong.CommandNode {
				words = append(words, n.Name)
			}
		case *kong.Flag:
			if !n.Hidden {
				words = append(words, "--"+n.Name)
			}
		}
		return next(nil)
	})
	if len(words) < 20 {
		t.Fatalf("model has only %d commands and flags; is the CLI wired?", len(words))
	}
	for _, shell := range completion.Shells {
		script, err := completion.Script(app, shell)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range words {
			if shell == "fish" {
				w = strings.TrimPrefix(w, "--")
			}
			if !strings.Contains(script, w) {
				t.Errorf("%s script lacks %q", shell, w)
			}
		}
	}
	bash, _ := completion.Script(app, "bash")
	if want := `'init 0') echo '=zsh bash fish herdr-plugin systemd launchd'`; !strings.Contains(bash, want) {
		t.Errorf("bash script does not complete init's targets (%s)", want)
	}
}

func TestCompletionCommand(t *testing.T) {
	for _, shell := range completion.Shells {
		var out, errb bytes.Buffer
		if code := Main([]string{"completion", shell}, &out, &errb); code != 0 {
			t.Fatalf("completion %s: exit %d: %s", shell, code, errb.String())
		}
		if !strings.Contains(out.String(), "explain") {
			t.Errorf("completion %s printed no explain command:\n%s", shell, out.String())
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"completion", "tcsh"}, &out, &errb); code == 0 {
		t.Errorf("completion tcsh: exit 0, want an error")
	}
}

// Every target init accepts is offered by completion, and nothing else.
func TestInitCompletesItsTargets(t *testing.T) {
	var c CLI
	parser, err := kong.New(&c, kong.Name("herdrtabrenamer"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, n := range parser.Model.Children {
		if n.Name == "init" {
			offered = strings.Split(n.Positional[0].Tag.Get("complete"), ",")
		}
	}
	for _, target := range offered {
		args := []string{"init", target, "--cmd", "/usr/bin/herdrtabrenamer"}
		if target == pluginTarget {
			args = append(args, t.TempDir())
		}
		if code := Main(args, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
			t.Errorf("init %s: offered by completion but exit %d", target, code)
		}
	}
	if len(offered) != 6 {
		t.Errorf("completion offers %v; init takes 6 targets", offered)
	}
}
