package output

import "github.com/kcl-lang/flux-kcl-controller/kcl/value"

// atLeast is a lower bound of the bytes printing v takes: every key and string
// it prints appears at least once in the text, whatever its style, a key with
// its ':', an element with its '-', any other scalar with a character. It stops
// counting once past limit; as every node counts, shared or cyclic values cost
// no more than the cap. YAML checks it against the output cap first, so an
// output bomb is refused without printing (and growing a buffer to) the cap.
func (p *yamlPrinter) atLeast(v value.Value, limit int64, depth int) int64 {
	if depth > maxYAMLDepth {
		return 0 // the printer reports the depth
	}
	var n int64
	switch x := p.normalize(v).(type) {
	case value.Str:
		return int64(len(x))
	case *value.Dict:
		for _, e := range x.Entries() {
			if !p.keep(e) {
				continue
			}
			n += int64(len(e.Key)) + 1 + p.atLeast(e.Value, limit-n, depth+1)
			if n > limit {
				return n
			}
		}
	case *value.List:
		for _, e := range x.Elems {
			if p.skip(e) {
				continue
			}
			n += 1 + p.atLeast(e, limit-n, depth+1)
			if n > limit {
				return n
			}
		}
	default:
		return 1
	}
	return n
}
