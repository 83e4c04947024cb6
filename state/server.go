package state

import "maps"

// Server names the herdr server process the memory describes: a server
// restarted without its session counts its ids from 1 again, and the
// memory of its predecessor must not apply to the tabs that reuse them.
type Server struct {
	// Peer is the process at the other end of the socket ("<pid>@<start
	// in ms>"): herdr itself, or a forwarder (ssh -L, socat) that
	// outlives the herdr behind it.
	Peer string
	// Terminals are the terminal ids herdr gave some panes, by pane id.
	// herdr makes a new terminal, with a new id, for every pane it starts
	// or restores, and keeps it for the pane's life: a known pane showing
	// another terminal is a server that restarted, whatever forwards its
	// socket.
	Terminals map[string]string
}

func (s Server) clone() Server {
	s.Terminals = maps.Clone(s.Terminals)
	return s
}
