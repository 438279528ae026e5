package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testdata/overridden.k holds programs run with -O … (-d), each followed by
// what the official kcl run 0.12.1 left in main.k (kcl-official, the same
// arguments), one line "# text" or "#" a line, and its exit code:
//
//	### note: what the chunk shows
//	…main.k…
//	### args: -O app.name="x" -d   (split on spaces, no shell)
//	### exit: 0
//	### main.k:
//	# …
//
// Chunks are separated by "---".
func TestOverriddenFileIsWrittenBack(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "overridden.k"))
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range strings.Split(string(data), "\n---\n") {
		var src, want []string
		var args []string
		note, exit, section := "", 0, "src"
		for _, l := range strings.Split(strings.TrimSuffix(chunk, "\n"), "\n") {
			switch {
			case strings.HasPrefix(l, "### note: "):
				note = strings.TrimPrefix(l, "### note: ")
			case strings.HasPrefix(l, "### args: "):
				args = strings.Fields(strings.TrimPrefix(l, "### args: "))
			case strings.HasPrefix(l, "### exit: "):
				exit, _ = strconv.Atoi(strings.TrimPrefix(l, "### exit: "))
			case l == "### main.k:":
				section = "want"
			case section == "want":
				want = append(want, strings.TrimPrefix(strings.TrimPrefix(l, "#"), " "))
			default:
				src = append(src, l)
			}
		}
		t.Run(note, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"main.k": strings.Join(src, "\n") + "\n"})
			code, _, errOut := runIn(t, dir, append([]string{"run", "main.k"}, args...)...)
			if code != exit {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, exit, errOut)
			}
			got, err := os.ReadFile(filepath.Join(dir, "main.k"))
			if err != nil {
				t.Fatal(err)
			}
			if w := strings.Join(want, "\n") + "\n"; string(got) != w {
				t.Fatalf("main.k:\n%s\nwant:\n%s", got, w)
			}
		})
	}
}
