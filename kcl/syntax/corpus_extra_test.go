package syntax

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseTree parses every .k file under KCL_PARSE_TREE (any directory of KCL
// sources) and lists those with syntax errors; it is a survey, not a check,
// and is skipped when the variable is unset.
func TestParseTree(t *testing.T) {
	root := os.Getenv("KCL_PARSE_TREE")
	if root == "" {
		t.Skip("set KCL_PARSE_TREE to a directory of .k files")
	}
	var ok, bad int
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".k") {
			return nil
		}
		src, _ := os.ReadFile(p)
		if _, err := ParseFile(p, src); err != nil {
			bad++
			t.Log(err)
		} else {
			ok++
		}
		return nil
	})
	t.Logf("parsed %d/%d files", ok, ok+bad)
}
