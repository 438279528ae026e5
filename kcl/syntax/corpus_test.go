package syntax

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestGrammarCorpus measures the parser against the official grammar test corpus
// (a checkout's tests/grammar directory named by KCL_GRAMMAR_CORPUS): every .k
// file of a case whose golden is a stdout must parse, and a case whose golden
// stderr starts with an InvalidSyntax error must be rejected at the same place
// with the same message. Skipped when the variable is unset, so the corpus never
// needs to be in this repository.
func TestGrammarCorpus(t *testing.T) {
	root := os.Getenv("KCL_GRAMMAR_CORPUS")
	if root == "" {
		t.Skip("set KCL_GRAMMAR_CORPUS to a kcl tests/grammar directory")
	}
	var okFiles, badFiles, synCases, synRejected, synSame, synAllSame, synRendered int
	allErr := regexp.MustCompile(`(?m)^error\[E1001\]: InvalidSyntax\n\s*--> [^\n]*?([^/\n]+\.k):(\d+):(\d+)\n(?:[^\n]*\n){2}[^\n]*\|[ ^]*(.*)$`)
	var failures []string
	firstErr := regexp.MustCompile(`(?m)^error\[E1001\]: InvalidSyntax\n\s*--> [^\n]*?([^/\n]+\.k):(\d+):(\d+)\n(?:[^\n]*\n){2}[^\n]*\|[ ^]*(.*)$`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "main.k" {
			return err
		}
		dir := filepath.Dir(path)
		if _, err := os.Stat(filepath.Join(dir, "stdout.golden")); err == nil {
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".k") {
					return err
				}
				src, _ := os.ReadFile(p)
				m, perr := ParseFile(p, src)
				if perr != nil {
					badFiles++
					failures = append(failures, perr.Error())
				} else {
					okFiles++
				}
				visited := 0
				Walk(m, func(n Node) bool {
					if n != nil {
						visited++
					}
					return true
				})
				if want := countNodes(reflect.ValueOf(m).Elem().Addr(), true); visited != want {
					t.Errorf("%s: Walk visited %d of %d nodes", p, visited, want)
				}
				return nil
			})
			return nil
		}
		golden, err := os.ReadFile(filepath.Join(dir, "stderr.golden"))
		if err != nil {
			return nil
		}
		m := firstErr.FindSubmatch(golden)
		if m == nil || !strings.HasPrefix(strings.TrimSpace(string(golden)), "error[E1001]: InvalidSyntax") || string(m[1]) != "main.k" {
			return nil
		}
		synCases++
		src, _ := os.ReadFile(path)
		_, perr := ParseFile(path, src)
		if perr == nil {
			failures = append(failures, "accepted: "+path)
			return nil
		}
		synRejected++
		e := perr.(*Error)
		want := string(m[2]) + ":" + string(m[3]) + " " + strings.TrimSpace(string(m[4]))
		got := itoa(e.Pos.Line) + ":" + itoa(e.Pos.Col) + " " + e.Msg
		_, all := ParseFileAll(path, src)
		var gotAll []string
		for _, e := range all {
			gotAll = append(gotAll, itoa(e.Pos.Line)+":"+itoa(e.Pos.Col)+" "+e.Msg)
		}
		var wantAll []string
		for _, m := range allErr.FindAllSubmatch(golden, -1) {
			wantAll = append(wantAll, string(m[2])+":"+string(m[3])+" "+strings.TrimSpace(string(m[4])))
		}
		if strings.Join(gotAll, "\n") == strings.Join(wantAll, "\n") {
			synAllSame++
		} else {
			failures = append(failures, "error list differs: "+path+"\n    want "+strings.Join(wantAll, "\n         ")+"\n    got  "+strings.Join(gotAll, "\n         "))
		}
		// The rendered first error must appear in the golden stderr as it is.
		first := *e
		first.Rest = nil
		if strings.Contains(string(golden), first.Render(src, "${CWD}/main.k")) {
			synRendered++
		} else {
			failures = append(failures, "rendering differs: "+path+"\n"+first.Render(src, "${CWD}/main.k"))
		}
		if want == got {
			synSame++
		} else {
			failures = append(failures, "differs: "+path+"\n    want "+want+"\n    got  "+got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range failures {
		t.Log(f)
	}
	t.Logf("stdout-case .k files parsed: %d/%d; syntax-error cases rejected: %d/%d, same first error: %d, same error list: %d, rendering found in golden: %d",
		okFiles, okFiles+badFiles, synRejected, synCases, synSame, synAllSame, synRendered)
	if badFiles > 0 {
		t.Errorf("%d files of passing cases failed to parse", badFiles)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}
