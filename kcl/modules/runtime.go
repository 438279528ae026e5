package modules

import (
	"errors"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

func init() {
	rt := newModule("runtime")
	def(rt, "catch", func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		fv, ok := arg(args, kwargs, 0, "func")
		if !ok {
			return nil, evalErr("catch() takes exactly one argument (0 given)")
		}
		f, ok := fv.(value.Callable)
		if !ok {
			return nil, value.Errorf(errkind.Evaluation, "'%s' object is not callable", fv.Type())
		}
		_, err := f.Call(t, nil, nil)
		if err == nil {
			return value.Undefined, nil
		}
		// deadlines and resource limits are not program errors: never swallow them
		var ve *value.Error
		if errors.As(err, &ve) && (ve.Kind == errkind.Limit || ve.Kind == errkind.Recursion) {
			return nil, err
		}
		if t != nil {
			if cerr := t.Check(); cerr != nil {
				return nil, cerr
			}
		}
		return value.Str(value.ErrorMessage(err)), nil
	})
}
