package main

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"
)

// releaseBase is where a version's release files are downloaded from; the
// plugin build script spells the same URL.
const releaseBase = "https://github.com/herdrtabrenamer/herdrtabrenamer/releases/download/v"

//go:embed formula.rb.tmpl
var formulaTemplate string

// renderFormula is the Homebrew formula for version, with the archives'
// checksums from sums: every unix archive must be listed there.
func renderFormula(sums checksums, version string) (string, error) {
	data := struct {
		Version, Base string
		Names, Sums   map[string]string
	}{version, releaseBase + version, map[string]string{}, map[string]string{}}
	for _, t := range allTargets {
		if t.goos == "windows" {
			continue
		}
		name := t.archiveName(version)
		sum, ok := sums[name]
		if !ok {
			return "", fmt.Errorf("the formula needs the checksum of %s, which %s does not list: run go run ./release -update", name, sumsFile)
		}
		data.Names[t.String()], data.Sums[t.String()] = name, sum
	}
	tmpl, err := template.New("formula").Option("missingkey=error").Parse(formulaTemplate)
	if err != nil {
		return "", fmt.Errorf("parse the embedded formula.rb.tmpl: %w", err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render the embedded formula.rb.tmpl: %w", err)
	}
	return b.String(), nil
}
