package cli

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// maxCommentLength is GitHub's limit on a pull-request comment body, in characters; the
// comment is measured in bytes, which are never fewer.
const maxCommentLength = 65536

// commentNoteRoom is kept free for the note that says what a cut left out.
const commentNoteRoom = 2048

// maxNamedCuts bounds the note: the rest are counted.
const maxNamedCuts = 10

// sectionSlack covers what a section's diff adds besides its text: a fence, a cut line.
const sectionSlack = 96

// markdownComment is one pull-request comment: a heading with the counts, then a collapsed
// section per KCLRun (open when it failed). What does not fit in limit is cut with a note
// saying what is missing, never silently.
func markdownComment(source string, diffs []runDiff, limit int) string {
	var b strings.Builder
	changed, failed := 0, 0
	for _, d := range diffs {
		switch {
		case d.err != nil:
			failed++
		case d.changed:
			changed++
		}
	}
	fmt.Fprintf(&b, "### flux-kcl-controller diff of `%s`\n\n", source)
	fmt.Fprintf(&b, "%d KCLRuns: %d with changes, %d without, %d failed.\n\n", len(diffs), changed, len(diffs)-changed-failed, failed)
	if len(diffs) == 0 {
		b.WriteString("No KCLRun uses this source.\n")
	}
	// Every section's summary is kept (a failure is never cut away); the diffs share the
	// room that is left, in order.
	budget := limit - commentNoteRoom
	room := budget - b.Len()
	for _, d := range diffs {
		room -= len(commentSection(d, "")) + sectionSlack
	}
	var cut []string
	for _, d := range diffs {
		if b.Len()+len(commentSection(d, ""))+sectionSlack > budget {
			cut = append(cut, "the section of "+runName(d))
			continue
		}
		if len(d.text) <= room {
			b.WriteString(commentSection(d, d.text))
			room -= len(d.text)
			continue
		}
		kept := cutAtLine(d.text, max(room, 0))
		room -= len(kept)
		b.WriteString(commentSection(d, kept+fmt.Sprintf("… cut here: %d more characters\n", len(d.text)-len(kept))))
		cut = append(cut, fmt.Sprintf("%d characters of the diff of %s", len(d.text)-len(kept), runName(d)))
	}
	if len(cut) > maxNamedCuts {
		cut = append(cut[:maxNamedCuts], fmt.Sprintf("%d more sections", len(cut)-maxNamedCuts))
	}
	if len(cut) > 0 {
		fmt.Fprintf(&b, "\n> [!WARNING]\n> Cut to stay within GitHub's %d-character comment limit: %s %s not shown. Run `flux-kcl-controller diff kclrun NAME --path DIR` for the full diff.\n",
			maxCommentLength, strings.Join(cut, ", "), map[bool]string{true: "is", false: "are"}[len(cut) == 1])
	}
	return b.String()
}

func runName(d runDiff) string { return d.run.Namespace + "/" + d.run.Name }

// commentSection is one KCLRun's collapsed section with the diff text (or the error).
func commentSection(d runDiff, text string) string {
	var b strings.Builder
	summary := fmt.Sprintf("<code>%s</code> (spec.path <code>%s</code>)", html.EscapeString(runName(d)), html.EscapeString(pathOrRoot(d.run.Spec.Path)))
	switch {
	case d.err != nil:
		fmt.Fprintf(&b, "<details open><summary>❌ %s: failed</summary>\n\n````\n%s\n````\n", summary, d.err.Error())
		if text != "" {
			fmt.Fprintf(&b, "\n````diff\n%s````\n", text)
		}
	case d.changed:
		fmt.Fprintf(&b, "<details><summary>✏️ %s: %d changes</summary>\n\n````diff\n%s````\n", summary, countChanges(d.text), text)
	default:
		fmt.Fprintf(&b, "<details><summary>✅ %s: no changes</summary>\n\nNothing to apply.\n", summary)
	}
	b.WriteString("\n</details>\n\n")
	return b.String()
}

func pathOrRoot(p string) string {
	if p == "" {
		return "./"
	}
	return p
}

// countChanges counts the objects diffObjects reported created, drifted or deleted.
func countChanges(text string) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "► ") && !strings.HasSuffix(line, " skipped") {
			n++
		}
	}
	return n
}

// cutAtLine keeps at most n bytes of text, ending at a line end when one is in reach and
// never inside a UTF-8 character.
func cutAtLine(text string, n int) string {
	if len(text) <= n {
		return text
	}
	if n == 0 {
		return ""
	}
	kept := text[:n]
	if i := strings.LastIndexByte(kept, '\n'); i >= 0 {
		return kept[:i+1]
	}
	for len(kept) > 0 && !utf8.RuneStart(text[len(kept)]) {
		kept = kept[:len(kept)-1]
	}
	return kept + "\n"
}
