// Package owner decides whose a label is and what becomes of it: a
// tab's, a workspace's or a pane's, each by its own rule (Tab, Workspace,
// Pane), and the rules that follow from them (a put-back, a lock's label
// given back, what restore gives back). Everything that asks whether a
// label may be replaced asks here: the pass's judge phase, the renamer's
// re-read before each rename and its echoes, event triage, lock and
// restore. Nothing else restates any part of the rule.
//
// The rule's input is a Case: the label now, the name wanted, what the
// template's other renders are (namer's variants), and the Memory of the
// target. A Memory is made here and nowhere else: from what package state
// holds of the target (Of), or, where a caller knows only labels of ours
// (an echo's look, restore's check of a label against the template), as
// such a partial memory (Labels).
//
// # Whose a label is
//
// A label is ours when the memory says we set it (or asked for it
// lately: it may still land), or, for a tab or workspace, when some
// render of the current template under another status, with or without
// the program or agent, equals it; a pane's label is ours by the memory
// alone. herdr's own labels are its tab's bare position number or
// "" for a tab, "" alone for a pane (herdr gives a pane no label of its
// own; a bare number there is someone's choice), and "" or what herdr
// would call it now (Case.Auto) for a workspace. Anything else is a
// person's, and is only replaced with --force or once the person
// released the target (a release ends as soon as it carries our name
// again); a locked target is never touched, and a skip rule outranks
// everything. A person who types exactly what we would render on a tab
// cannot be told from us, and the label is treated as ours; on a pane it
// is theirs (herdr names no pane, so only a person or a client does). Workspaces have no
// lock, release or --force: only the memory's labels count for them.
//
// # Who calls what
//
// Everything here is pure (no I/O, no clock: callers hand in now) and
// safe from any goroutine.
package owner
