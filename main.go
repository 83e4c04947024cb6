// Command herdrtabrenamer names herdr's tabs after what runs inside them.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}
