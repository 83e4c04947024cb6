package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the transcripts in testdata/script: what a person
// types and what they see, checked line by line.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
