package modules

import (
	"strconv"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

var unitScale = []struct {
	name  string
	scale float64
	int   int64 // 0 for the sub-unit suffixes, whose constants are floats
}{
	{"n", 1e-9, 0}, {"u", 1e-6, 0}, {"m", 0.001, 0},
	{"k", 1e3, 1_000}, {"K", 1e3, 1_000}, {"M", 1e6, 1_000_000}, {"G", 1e9, 1_000_000_000},
	{"T", 1e12, 1_000_000_000_000}, {"P", 1e15, 1_000_000_000_000_000},
	{"Ki", 1024, 1024}, {"Mi", 1024 * 1024, 1 << 20}, {"Gi", 1024 * 1024 * 1024, 1 << 30},
	{"Ti", 1024 * 1024 * 1024 * 1024, 1 << 40}, {"Pi", 1024 * 1024 * 1024 * 1024 * 1024, 1 << 50},
}

func init() {
	m := newModule("units")
	for _, u := range unitScale {
		if u.int != 0 {
			m.Members[u.name] = value.Int(u.int)
		} else {
			m.Members[u.name] = value.Float(u.scale)
		}
		if u.name == "k" {
			continue // there is no to_k
		}
		u := u
		fn := "to_" + u.name
		def(m, fn, func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
			v, ok := arg(args, kwargs, 0, "num")
			if !ok {
				return nil, evalErr("%s() missing 1 required positional argument: 'num'", fn)
			}
			var num float64
			switch x := v.(type) {
			case value.Int:
				num = float64(x)
			case value.Float:
				num = float64(x)
			case value.Bool:
				if x {
					num = 1
				}
			case value.Str:
				if u.int != 0 {
					return nil, evalErr("%s() missing 1 required positional argument: 'num'", fn)
				}
				f, err := strconv.ParseFloat(string(x), 64)
				if err != nil {
					return nil, evalErr("invalid literal for float() with base 10: '%s'", string(x))
				}
				num = f
			default:
				return nil, evalErr("%s() missing 1 required positional argument: 'num'", fn)
			}
			return value.Str(strconv.FormatInt(int64(num/u.scale), 10) + u.name), nil
		})
	}
}
