package namer

import "strings"

// tokens lists the tokens the template refers to, in template order,
// without duplicates ("proc", "token.branch", ...).
func (t *Template) tokens() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range t.parts {
		for _, r := range p.alts {
			n := kindNames[r.kind]
			if r.kind == kToken {
				n = "token." + r.name
			}
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// renderVals renders t with values given by token name ("proc",
// "token.x"), sanitising each value but not the result.
func (t *Template) renderVals(vals map[string]string) string {
	var vs values
	for k := kProc; k < kToken; k++ {
		vs.v[k] = Sanitize(vals[kindNames[k]])
	}
	vs.tokens = map[string]string{}
	for k, v := range vals {
		if name, ok := strings.CutPrefix(k, "token."); ok {
			vs.tokens[name] = v
		}
	}
	return string(t.render(&vs, nil))
}
