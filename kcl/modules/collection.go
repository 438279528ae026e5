package modules

import "github.com/kcl-lang/flux-kcl-controller/kcl/value"

func init() {
	c := newModule("collection")
	// 0.12.1 declares collection.union_all to its resolver but its runtime has
	// no such function: every use fails, and so it does here.
	def(c, "union_all", func(*value.Thread, *value.Builtin, []value.Value, []value.KV) (value.Value, error) {
		return nil, evalErr("unknown kcl_collection_union_all")
	})
}
