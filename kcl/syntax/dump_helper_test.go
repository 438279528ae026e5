package syntax

import (
	"fmt"
	"reflect"
	"strings"
)

// dump renders a node as a compact S-expression without positions, so tests
// can state expected trees in one line.
func dump(v any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(v))
	return b.String()
}

func dumpValue(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		dumpValue(b, v.Elem())
	case reflect.Struct:
		t := v.Type()
		switch x := v.Interface().(type) {
		case Name:
			fmt.Fprintf(b, "%q", x.Value)
			return
		case Identifier:
			b.WriteString((&x).Name())
			return
		}
		b.WriteString("(" + t.Name())
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous || f.Name == "Raw" || f.Name == "RawValue" {
				continue
			}
			fv := v.Field(i)
			if fv.IsZero() || (fv.Kind() == reflect.Slice && fv.Len() == 0) {
				continue
			}
			b.WriteString(" " + f.Name + "=")
			dumpValue(b, fv)
		}
		b.WriteString(")")
	case reflect.Slice:
		b.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(" ")
			}
			dumpValue(b, v.Index(i))
		}
		b.WriteString("]")
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		if s, ok := v.Interface().(fmt.Stringer); ok {
			b.WriteString(s.String())
			return
		}
		fmt.Fprint(b, v.Interface())
	}
}
