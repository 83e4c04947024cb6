package namer

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// sortLongestFirst orders names so that "claude code" is cut before the
// label "claude".
func sortLongestFirst(names []string) {
	slices.SortStableFunc(names, func(a, b string) int { return len(b) - len(a) })
}

func init() { sortLongestFirst(agentNames) }

// agentNames are the names agents put into their own titles, lower-cased.
// The pane's own agent label and display name are added.
var agentNames = []string{
	"github copilot", "openai codex", "factory droid", "cursor agent", "claude code",
	"gemini cli", "kilo code", "mastracode", "opencode", "qodercli", "copilot",
	"claude", "gemini", "hermes", "cursor", "codex", "droid", "devin", "goose",
	"aider", "cline", "qoder", "kimi", "kiro", "grok", "kilo", "maki", "amp", "agy",
	"omp", "oc", "pi", "π",
}

var (
	// taskSep splits a title into parts: "π api · claude-sonnet-4",
	// "Claude Code - Fix login", "codex: review".
	taskSep = regexp.MustCompile(`\s+[·|—–-]\s+|:\s+`)
	// versionRe is a bare version: "v1.2.3", "2.0.14", "1.0.0-beta.2".
	versionRe = regexp.MustCompile(`(?i)^v?\d+(\.\d+)+([-+][0-9a-z.-]*)?$`)
	// modelRe is a model id agents show beside the task.
	modelRe = regexp.MustCompile(`(?i)^(claude|gpt|o[1-9]|gemini|sonnet|opus|haiku|grok|kimi|qwen|deepseek|llama|mistral|glm)([-.][0-9a-z.-]*)?$`)
)

// Task is {task}: what the agent in pane p is working on, from the title
// it sets (Claude Code: "✳ Fix login redirect"). Status and spinner glyphs
// around it go, and so do the agent's own name (alone or as a prefix),
// paths, the directory's name, bare versions and model ids, whichever part
// of the title they are. "" when nothing useful is left, or p has no agent.
func Task(p herdr.Pane) string {
	if p.Agent == "" || p.Title == "" && p.TerminalTitle == "" && p.TerminalTitleStripped == "" {
		return ""
	}
	var dirs []string
	for _, d := range []string{p.ForegroundCwd, p.Cwd} {
		if d != "" {
			dirs = append(dirs, strings.ToLower(path.Base(path.Clean(d))))
		}
	}
	names := agentNames
	for _, n := range []string{p.Agent, p.DisplayAgent} {
		if n = strings.ToLower(Sanitize(n)); n != "" && !slices.Contains(names, n) {
			if len(names) == len(agentNames) {
				names = slices.Clone(agentNames)
			}
			names = append(names, n)
		}
	}
	if len(names) != len(agentNames) {
		sortLongestFirst(names)
	}
	for _, title := range []string{p.Title, p.TerminalTitle, p.TerminalTitleStripped} {
		if title == "" {
			continue
		}
		if t := taskOf(Sanitize(title), names, dirs); t != "" {
			return t
		}
	}
	return ""
}

func taskOf(title string, names, dirs []string) string {
	var kept []string
	for _, part := range taskSep.Split(title, -1) {
		part = trimGlyphs(part)
		// The agent's name as a prefix: "π api", "Claude Code fix".
		for changed := true; changed && part != ""; {
			changed = false
			low := strings.ToLower(part)
			if slices.Contains(names, low) {
				part = ""
				break
			}
			for _, n := range names {
				if rest, ok := strings.CutPrefix(low, n+" "); ok {
					part = trimGlyphs(part[len(part)-len(rest):])
					changed = true
					break
				}
			}
		}
		if part != "" && !uselessPart(part, names, dirs) {
			kept = append(kept, part)
		}
	}
	return strings.Join(kept, " - ")
}

// uselessPart: the agent's name, a path, the directory's name, a version
// or a model id.
func uselessPart(s string, names, dirs []string) bool {
	low := strings.ToLower(s)
	for _, n := range names {
		if low == n {
			return true
		}
	}
	for _, d := range dirs {
		if low == d {
			return true
		}
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "./") ||
		(strings.Contains(s, "/") && !strings.Contains(s, " ")) {
		return true
	}
	return versionRe.MatchString(s) || modelRe.MatchString(s)
}

// trimGlyphs drops status and spinner glyphs (✳ ⠂ ● ✔ 🟡 ...) and stray
// punctuation around a title part, keeping what can start or end a task.
func trimGlyphs(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(`"'([#@~/.`, r)
	})
	return strings.TrimRightFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(`"')].!?`, r)
	})
}

// ticketRe is an issue key: a project key of capitals and digits, a dash
// and a number (ABC-123, GH-7). Lower-case keys are not taken: "fix-2-bugs"
// would read as one.
var ticketRe = regexp.MustCompile(`(^|[^A-Za-z0-9])([A-Z][A-Z0-9]+-[0-9]+)($|[^A-Za-z0-9])`)

// Ticket is {ticket}: the first issue key in a branch name
// ("feature/ABC-123-fix-login" -> "ABC-123"), "" when there is none.
func Ticket(branch string) string {
	if m := ticketRe.FindStringSubmatch(branch); m != nil {
		return m[2]
	}
	return ""
}
