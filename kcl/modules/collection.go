package modules

import "github.com/kcl-lang/flux-kcl-controller/kcl/value"

func init() {
	c := newModule("collection")
	def(c, "union_all", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		if len(args) == 0 {
			return nil, evalErr("union_all() takes at least 1 argument (0 given)")
		}
		l, ok := args[0].(*value.List)
		if !ok || len(l.Elems) == 0 {
			return value.NewDict(0), nil
		}
		result := value.DeepCopy(l.Elems[0])
		for _, v := range l.Elems[1:] {
			r, err := value.Union(t, result, v, value.UnionOptions{})
			if err != nil {
				return nil, err
			}
			result = r
		}
		return result, nil
	})
}
