//go:build windows

package daemon

import (
	"log/slog"

	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// nudgeListener on Windows listens for nothing: nudges travel as Unix
// datagrams, which Windows lacks (AF_UNIX there is stream-only). The
// daemon still renames from herdr's events and its poll.
type nudgeListener struct{}

func listenNudges(string) (*nudgeListener, error) { return &nudgeListener{}, nil }

func (*nudgeListener) serve(_ chan<- nudge.Message, log *slog.Logger) {
	log.Info("no nudges on Windows: renames follow herdr's events and the poll")
}

func (*nudgeListener) Close() error { return nil }

// intact: there is no socket file a wiped runtime dir could take.
func (*nudgeListener) intact() bool { return true }
