// Command herdrtabrenamer names herdr's tabs after what runs inside them.
package main

import (
	"os"
)

func main() {
	// Shell hooks run `nudge` on every prompt: skip building the kong
	// grammar for the exact form they use.
	if n, g, ok := hookNudge(os.Args[1:]); ok {
		os.Exit(n.runFast(g, os.Stderr))
	}
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}
