package syntax

import (
	"fmt"
	"strings"
	"testing"
)

// largeProgram generates a file with n schema attributes spread over schemas of
// 50, plus a config instance per schema, in the style of generated k8s models.
func largeProgram(n int) []byte {
	var b strings.Builder
	b.WriteString("import regex\n\n")
	for s := 0; s*50 < n; s++ {
		fmt.Fprintf(&b, "schema Model%d(Base):\n    \"\"\"Model%d is generated.\"\"\"\n\n", s, s)
		for a := 0; a < 50 && s*50+a < n; a++ {
			switch a % 5 {
			case 0:
				fmt.Fprintf(&b, "    field%d?: str = \"v%d\"\n", a, a)
			case 1:
				fmt.Fprintf(&b, "    field%d: int = %d\n", a, a)
			case 2:
				fmt.Fprintf(&b, "    field%d?: [str]\n", a)
			case 3:
				fmt.Fprintf(&b, "    field%d?: {str:str} = {\"k\": \"${field0}\"}\n", a)
			case 4:
				fmt.Fprintf(&b, "    field%d?: \"Always\" | \"Never\" | \"IfNotPresent\"\n", a)
			}
		}
		b.WriteString("\n    check:\n        field1 >= 0, \"field1 must be positive\"\n        regex.match(field0, r\"^[a-z]+$\") if field0\n\n")
		fmt.Fprintf(&b, "m%d = Model%d {\n    field0 = \"x\"\n    field1: %d\n    field2 = [\"a\", \"b\"]\n}\n\n", s, s, s)
	}
	return []byte(b.String())
}

func BenchmarkParse(b *testing.B) {
	src := largeProgram(5000)
	if _, err := ParseFile("large.k", src); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFile("large.k", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScan(b *testing.B) {
	src := largeProgram(5000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Scan("large.k", src); err != nil {
			b.Fatal(err)
		}
	}
}
