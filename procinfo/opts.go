package procinfo

import (
	"slices"
	"strings"
)

// optSpec says which options of a command take a value, so the command's
// first operand (the program it launches, the script it runs, the host it
// connects to) can be found without knowing every flag. Unknown options are
// taken as flags: a wrong guess shifts the operand by one, which is the
// lesser harm compared with refusing to name anything.
type optSpec struct {
	short string   // short option letters that take a value
	long  []string // long options that take a value as the next argument
}

// scan walks the options at the front of args. It calls visit (when non-nil)
// for each option: a short option as its letter with long == "", a long one
// as short == 0 and long == "--user"; val is its value ("" when it has
// none). visit returns false to stop the scan at that option. scan
// returns the index of the first operand (len(args) when there is none) and
// whether visit stopped it.
func (o optSpec) scan(args []string, visit func(short byte, long, val string) bool) (int, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return i + 1, false
		}
		if len(a) < 2 || a[0] != '-' {
			return i, false
		}
		if a[1] == '-' {
			opt, val, inline := strings.Cut(a, "=")
			if !inline && slices.Contains(o.long, a) && i+1 < len(args) {
				i++
				val = args[i]
			}
			if visit != nil && !visit(0, opt, val) {
				return i, true
			}
			continue
		}
		// A cluster of short options: "-vvv", "-lc", "-uroot", "-p" "22".
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(o.short, a[j]) < 0 {
				if visit != nil && !visit(a[j], "", "") {
					return i, true
				}
				continue
			}
			val := a[j+1:]
			if val == "" && i+1 < len(args) {
				i++
				val = args[i]
			}
			if visit != nil && !visit(a[j], "", val) {
				return i, true
			}
			break
		}
	}
	return len(args), false
}

// operand is scan without a visitor.
func (o optSpec) operand(args []string) int {
	i, _ := o.scan(args, nil)
	return i
}
