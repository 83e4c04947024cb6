// Package namer decides what a herdr tab, workspace or pane should be
// called; whether it may be renamed is package owner's. It is pure: no
// I/O, no clock, no logging, and safe from any goroutine. The pass feeds
// it herdr's data types plus a few facts it gathered itself (program, ssh
// host, git repo and branch) and acts on the answers.
//
// # Templates
//
// A template mixes literal text and token groups: "{icon} {proc|dir}".
// Tokens: proc args dir agent task session cwd title icon glyph status
// number index host repo branch ticket workspace match and token.NAME (a
// pane metadata token). A group with
// alternatives, {a|b|c}, takes the first non-empty value. "{{" and "}}" are
// literal braces; a lone "}" or a "{" inside a group is an error.
//
// Literal text is glue: a literal run is kept only when every token group it
// touches is non-empty. A run between two groups needs both; a leading or
// trailing run needs its one neighbour; a template without groups is kept as
// is. So "{agent}:{dir}" renders "nixos" without an agent, "[{status}]"
// renders "[idle]" or nothing, and "{a} - {b} - {c}" renders "ac" when b is
// empty (both runs touch b; write the separator into a neighbour instead).
//
// # Values
//
// {dir} is the basename of the lead pane's directory ("~" for the home
// directory, "/" for the root): herdr's foreground_cwd (the program's own
// directory), else its cwd, and the cwd when foreground_cwd is only that
// path with symlinks resolved (Config.SameDir). {cwd} is the whole path with
// the home directory shown as "~". {title} is the pane's metadata title, else its stripped terminal
// title. {status} is the tab's agent status ("" for unknown) and {icon} its
// icon. {number} is herdr's stable tab number, {workspace} the workspace
// label, {token.NAME} the lead pane's metadata token NAME. {proc}, {args},
// {host}, {repo}, {branch}, {glyph}, {index} and {session} come from the
// caller (Facts); a lead pane with a detected agent has no {proc} or
// {args}, and one without has no {session} (the title of the agent's
// session). {task} is read from an agent pane's title (Task), {ticket}
// from the branch (Ticket); {index} shows positions 1-9 only, and
// {branch} is empty on the default branch with Config.HideDefaultBranch. {match} is set by the override rule that
// matched. Every value and every final name is sanitised (see Sanitize) and
// cut to the configured display width (see Truncate).
//
// # Override rules
//
// Rules are tried in order and the first that matches wins. A rule's dir is
// a gobwas/glob pattern compiled with '/' as separator and globstar on:
// "*" and "?" never cross '/', "**" does, and a whole "**/" segment also
// matches zero segments ("~/src/**/x" matches "~/src/x"), while a trailing
// "/**" needs at least one more segment. A leading "~" is the home
// directory (quoted, so its own characters are literal); "~user" and
// relative patterns are errors. The pattern is tried against the cwd and then each
// ancestor going up; the first (deepest) path that matches is the match and
// its basename is {match}. So "~/projects/*" matches "~/projects/api/src"
// with {match} = "api". A rule's program is a glob (no separators) on {proc};
// it never matches an empty {proc}. A rule with only a program sets {match}
// to the program. A rule sets exactly one of format, name or skip.
//
// # Quick commands
//
// While a quick command (DefaultIgnore, or Config.Ignore plus
// Config.ExtendIgnore) is the lead pane's program, Decide names the tab as
// with the shell in front: no {proc}, {args}, {glyph} or {host}, and the
// shell's directory rather than the program's. So `ls` or `git status`
// costs no rename, and none back when it exits. A pattern is a glob on the
// program name, or, with a blank, on the command line ({args}).
//
// # Whose a label is
//
// A Decision's Variants are the renders of the tab under other statuses,
// with and without its program or agent: package owner counts each as
// ours, and decides whose a label is and what becomes of it. Nothing
// here does.
//
// # Workspaces
//
// PlanWorkspace names a workspace with the same engine, after its active
// tab's lead pane, with the workspace's status and sidebar position in
// place of the tab's.
//
// # Panes
//
// A namer built with Config.Panes names one pane at a time (PlanPane):
// the tokens are the pane's own, a rule's pane-format is its format, and
// Unique tells apart the panes of one tab.
package namer
