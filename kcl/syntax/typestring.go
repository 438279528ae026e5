package syntax

import (
	"strconv"
	"strings"
)

// TypeString prints a type annotation the way the official engine does in its
// messages (`[str]`, `{str:int}`, `"a" | "b"`, `(int) -> str`).
func TypeString(t Type) string {
	var b strings.Builder
	writeType(&b, t)
	return b.String()
}

func writeType(b *strings.Builder, t Type) {
	switch t := t.(type) {
	case nil:
	case *AnyType:
		b.WriteString("any")
	case *NamedType:
		b.WriteString(t.Identifier.Name())
	case *BasicType:
		b.WriteString(t.Kind.String())
	case *ListType:
		b.WriteByte('[')
		writeType(b, t.InnerType)
		b.WriteByte(']')
	case *DictType:
		b.WriteByte('{')
		writeType(b, t.KeyType)
		b.WriteByte(':')
		writeType(b, t.ValueType)
		b.WriteByte('}')
	case *UnionType:
		if len(t.TypeElements) == 0 {
			b.WriteString("any")
			return
		}
		for i, e := range t.TypeElements {
			if i > 0 {
				b.WriteString(" | ")
			}
			writeType(b, e)
		}
	case *LiteralType:
		switch t.Kind {
		case LitBool:
			if t.Bool {
				b.WriteString("True")
			} else {
				b.WriteString("False")
			}
		case LitInt:
			b.WriteString(strconv.FormatInt(t.Int, 10))
			b.WriteString(t.Suffix)
		case LitFloat:
			s := strconv.FormatFloat(t.Float, 'f', -1, 64)
			if !strings.ContainsAny(s, ".eEnN") {
				s += ".0"
			}
			b.WriteString(s)
		case LitStr:
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(t.Str, `"`, `\"`))
			b.WriteByte('"')
		}
	case *FunctionType:
		b.WriteByte('(')
		for i, p := range t.ParamsTy {
			if i > 0 {
				b.WriteString(", ")
			}
			writeType(b, p)
		}
		b.WriteByte(')')
		if t.RetTy != nil {
			b.WriteString(" -> ")
			writeType(b, t.RetTy)
		}
	}
}
