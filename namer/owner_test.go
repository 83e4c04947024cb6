package namer

import "github.com/herdrtabrenamer/herdrtabrenamer/owner"

// judge is whose a tab's label is under decision d with the memory m, as
// package owner rules: what the namer's variants are for.
func judge(d Decision, label string, m owner.Memory, force bool) owner.Verdict {
	return owner.Tab(owner.Case{Label: label, Memory: m, Force: force, Variants: d.Variants, Skip: d.Skip}).Verdict
}
