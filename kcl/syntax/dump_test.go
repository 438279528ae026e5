package syntax

import (
	"os"
	"testing"
)

// TestDumpTokens prints the tokens of the file named by KCL_DUMP_FILE, for
// debugging the scanner by hand; skipped otherwise.
func TestDumpTokens(t *testing.T) {
	path := os.Getenv("KCL_DUMP_FILE")
	if path == "" {
		t.Skip("set KCL_DUMP_FILE to a .k file")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := Scan(path, src)
	for _, k := range toks {
		t.Logf("%d:%d-%d:%d [%d,%d) %-10s %q value=%q suffix=%q mis=%d", k.Line, k.Col, k.EndLine, k.EndCol, k.Start, k.End, k.Kind, k.Text, k.Value, k.Suffix, k.Misaligned)
	}
	if err != nil {
		t.Log("error:", err)
	}
	if _, err := ParseFile(path, src); err != nil {
		t.Log("parse error:", err)
	}
}
