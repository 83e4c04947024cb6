// Package daemon is herdrtabrenamer's loop: triggers (herdr events, a poll
// ticker, nudges from shell hooks) coalesce into passes; a pass reads the
// session once, decides every tab's name with namer and procinfo, and
// renames where the label differs and is not a person's. It also owns the
// nudge listener and the single-instance claim on a herdr server. What it
// remembers lives in package state; where its files go, in package rundir.
package daemon
