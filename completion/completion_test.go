package completion

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/creack/pty"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/quote"
)

// testCLI has the shapes herdrtabrenamer's grammar has: global flags with
// values and enums, commands with their own flags, a bool flag, a
// positional enum and a positional with a complete tag.
type testCLI struct {
	Socket    string `help:"herdr API socket." placeholder:"PATH"`
	Config    string `help:"Config file." type:"path"`
	LogFormat string `help:"Log format." enum:"text,json" default:"text"`
	LogLevel  string `help:"Log level: debug, info." enum:"debug,info,warn,error" default:"info"`

	Run struct {
		Apply    bool          `help:"Rename tabs."`
		MaxLen   int           `help:"Longest name." default:"24"`
		Poll     time.Duration `help:"Full pass interval." default:"3s"`
		Debounce time.Duration `help:"Coalesce events." default:"400ms"`
	} `cmd:"" help:"Run the daemon."`
	Once struct {
		Apply bool `help:"Rename tabs."`
	} `cmd:"" help:"Run one pass."`
	Explain struct {
		Format string `help:"Name template." default:"{proc|dir}"`
		JSON   bool   `help:"Print JSON."`
		TabID  string `arg:"" optional:"" name:"TAB_ID" help:"Only this tab."`
	} `cmd:"" help:"Show why each tab has its name."`
	Version    struct{} `cmd:"" help:"Print the version."`
	Completion struct {
		Shell string `arg:"" name:"SHELL" enum:"zsh,bash,fish" help:"zsh, bash or fish."`
	} `cmd:"" help:"Print a completion script."`
	Init struct {
		Target string `arg:"" name:"TARGET" complete:"zsh,bash,fish,herdr-plugin,systemd,launchd" help:"Target."`
	} `cmd:"" help:"Print a hook."`
}

// completionModel is the test grammar's kong model.
func completionModel(t *testing.T) *kong.Application {
	t.Helper()
	k, err := kong.New(&testCLI{}, kong.Name("herdrtabrenamer"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	return k.Model
}

// writeCompletion writes the generated script for shell into a temp dir.
func writeCompletion(t *testing.T, shell string) string {
	t.Helper()
	script, err := Script(completionModel(t), shell)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "herdrtabrenamer."+shell)
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// completionCases are typed into a real shell; TAB must turn the line into
// want. The shell's rc defines herdrtabrenamer as a function that prints
// its arguments, so Enter shows exactly what completion produced.
var completionCases = []struct {
	name, typed, want string
}{
	{"command", "herdrtabrenamer ex\t", "explain"},
	{"command after global flag with value", "herdrtabrenamer --socket /tmp/x ve\t", "--socket /tmp/x version"},
	{"global flag", "herdrtabrenamer --log-l\t", "--log-level"},
	{"enum value", "herdrtabrenamer --log-format j\t", "--log-format json"},
	{"enum value after =", "herdrtabrenamer --log-level=wa\t", "--log-level=warn"},
	{"command flag", "herdrtabrenamer run --max\t", "run --max-len"},
	{"flag after bool flag", "herdrtabrenamer run --apply --deb\t", "run --apply --debounce"},
	{"inherited global after command", "herdrtabrenamer once --log-format js\t", "once --log-format json"},
	{"positional enum", "herdrtabrenamer completion fi\t", "completion fish"},
	{"positional complete tag", "herdrtabrenamer init herdr-\t", "init herdr-plugin"},
	{"positional complete tag, second word", "herdrtabrenamer init sys\t", "init systemd"},
}

// ptyShell is an interactive shell on a pseudo-terminal.
type ptyShell struct {
	t   *testing.T
	tty *os.File
	mu  sync.Mutex
	out bytes.Buffer
}

func startPTYShell(t *testing.T, env []string, name string, args ...string) *ptyShell {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append([]string{"TERM=xterm", "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH")}, env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	s := &ptyShell{t: t, tty: tty}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tty.Close()
		<-done
	})
	return s
}

// waitFor polls the output until re has at least n matches and returns them.
func (s *ptyShell) waitFor(re *regexp.Regexp, n int) [][]string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s.mu.Lock()
		m := re.FindAllStringSubmatch(s.out.String(), -1)
		s.mu.Unlock()
		if len(m) >= n {
			return m
		}
		if time.Now().After(deadline) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.t.Fatalf("no %d matches of %s within 30s; terminal output:\n%q", n, re, s.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *ptyShell) send(text string) {
	s.t.Helper()
	if _, err := s.tty.WriteString(text); err != nil {
		s.t.Fatalf("type %q: %v", text, err)
	}
}

var (
	ptyArgsLine = regexp.MustCompile(`ARGS:\[([^\]\r\n]*)\]`)
	ptyReady    = regexp.MustCompile(`READY> `)
)

// runPTYCases types each case, waits for its ARGS line and compares.
func runPTYCases(t *testing.T, s *ptyShell) {
	s.waitFor(ptyReady, 1)
	for i, c := range completionCases {
		// The shell reads keys in order and completes synchronously, so
		// Enter is handled only after TAB's completion is in the line.
		s.send(c.typed + "\r")
		got := s.waitFor(ptyArgsLine, i+1)[i][1]
		if strings.TrimSpace(got) != c.want {
			t.Errorf("%s: %q<TAB> gave %q, want %q", c.name, strings.TrimSuffix(c.typed, "\t"), strings.TrimSpace(got), c.want)
		}
	}
}

func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed; CI installs it")
	}
	script := writeCompletion(t, "bash")
	dir := t.TempDir()
	rc := filepath.Join(dir, "bashrc")
	inputrc := filepath.Join(dir, "inputrc")
	writeCompFile(t, inputrc, "set bell-style none\n")
	writeCompFile(t, rc, fmt.Sprintf(`source %s
herdrtabrenamer() { printf 'ARGS:[%%s]\n' "$*"; }
PS1='READY> '
`, quote.POSIX(script)))
	s := startPTYShell(t, []string{"HOME=" + dir, "INPUTRC=" + inputrc}, bash, "--noprofile", "--rcfile", rc, "-i")
	runPTYCases(t, s)
}

func TestCompletionZsh(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh not installed; CI installs it")
	}
	script := writeCompletion(t, "zsh")
	dir := t.TempDir()
	writeCompFile(t, filepath.Join(dir, ".zshrc"), fmt.Sprintf(`autoload -Uz compinit
compinit -u -D
source %s
herdrtabrenamer() { printf 'ARGS:[%%s]\n' "$*"; }
PROMPT='READY> '
`, quote.POSIX(script)))
	// -d skips /etc/zsh/zshrc, whose settings differ between systems.
	s := startPTYShell(t, []string{"HOME=" + dir, "ZDOTDIR=" + dir}, zsh, "-d", "-i")
	runPTYCases(t, s)
}

// TestCompletionZshFpath loads the script the other way zsh users do: as
// _herdrtabrenamer in a directory on $fpath, autoloaded by compinit.
func TestCompletionZshFpath(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh not installed; CI installs it")
	}
	script, err := Script(completionModel(t), "zsh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeCompFile(t, filepath.Join(dir, "functions", "_herdrtabrenamer"), script)
	writeCompFile(t, filepath.Join(dir, ".zshrc"), `fpath=("$ZDOTDIR/functions" $fpath)
autoload -Uz compinit
compinit -u -D
herdrtabrenamer() { printf 'ARGS:[%s]\n' "$*"; }
PROMPT='READY> '
`)
	s := startPTYShell(t, []string{"HOME=" + dir, "ZDOTDIR=" + dir}, zsh, "-d", "-i")
	s.waitFor(ptyReady, 1)
	s.send("herdrtabrenamer ex\t\r")
	if got := strings.TrimSpace(s.waitFor(ptyArgsLine, 1)[0][1]); got != "explain" {
		t.Errorf("herdrtabrenamer ex<TAB> from $fpath gave %q, want explain", got)
	}
}

// TestCompletionFish asks fish's own completion engine (complete -C), which
// evaluates the generated conditions exactly as at an interactive prompt.
func TestCompletionFish(t *testing.T) {
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("fish not installed; CI installs it")
	}
	script := writeCompletion(t, "fish")
	for _, c := range []struct {
		line string
		want []string // completions that must be offered
		not  []string // and ones that must not
	}{
		{"herdrtabrenamer ex", []string{"explain"}, nil},
		{"herdrtabrenamer ", []string{"run", "once", "explain", "completion"}, nil},
		{"herdrtabrenamer --log-format ", []string{"text", "json"}, []string{"run"}},
		{"herdrtabrenamer run --max", []string{"--max-len"}, nil},
		{"herdrtabrenamer run --", []string{"--apply", "--poll", "--log-level"}, []string{"--json"}},
		{"herdrtabrenamer explain --", []string{"--json", "--format"}, []string{"--apply", "--poll"}},
		{"herdrtabrenamer completion ", []string{"zsh", "bash", "fish"}, nil},
		{"herdrtabrenamer init ", []string{"zsh", "herdr-plugin", "systemd", "launchd"}, nil},
		{"herdrtabrenamer run ", nil, []string{"explain"}},
	} {
		out, err := exec.Command(fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, c.line).CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v\n%s", err, out)
		}
		offered := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			w, _, _ := strings.Cut(l, "\t")
			offered[w] = true
		}
		for _, w := range c.want {
			if !offered[w] {
				t.Errorf("fish %q: %q not offered; got:\n%s", c.line, w, out)
			}
		}
		for _, w := range c.not {
			if offered[w] {
				t.Errorf("fish %q: %q offered but should not be; got:\n%s", c.line, w, out)
			}
		}
	}
}

func TestUnknownShell(t *testing.T) {
	if _, err := Script(completionModel(t), "tcsh"); err == nil || !strings.Contains(err.Error(), `"tcsh"`) {
		t.Errorf("unknown shell: err = %v, want one naming tcsh", err)
	}
}

func writeCompFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
