package output

import "github.com/kcl-lang/flux-kcl-controller/kcl/value"

// JSON encodes v as json.encode does (see value.EncodeJSON for the rules).
func JSON(v value.Value, opts value.JSONOptions) []byte {
	return []byte(value.EncodeJSON(v, opts))
}
