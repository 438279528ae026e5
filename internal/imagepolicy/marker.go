package imagepolicy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
)

// markerKey is the JSON key of a marker comment, as Flux's image automation spells it.
const markerKey = "$imagepolicy"

// Field says which part of an image reference a marked literal holds.
type Field string

const (
	// FieldImage: the literal is a whole reference, "repo:tag" or "repo:tag@digest".
	FieldImage Field = ""
	// FieldTag: the literal holds only the tag ("ns:name:tag").
	FieldTag Field = "tag"
	// FieldDigest: the literal holds only the digest ("ns:name:digest").
	FieldDigest Field = "digest"
	// FieldName: the literal holds only the repository ("ns:name:name"), verified, never changed.
	FieldName Field = "name"
)

// PolicyRef names an ImagePolicy as a marker does.
type PolicyRef struct {
	Namespace string // empty: the KCLRun's namespace
	Name      string
	Field     Field
}

// String is the marker's own spelling.
func (p PolicyRef) String() string {
	s := p.Name
	if p.Namespace != "" {
		s = p.Namespace + ":" + s
	}
	if p.Field != FieldImage {
		s += ":" + string(p.Field)
	}
	return s
}

// Marker is one marked string literal.
type Marker struct {
	File    string // path relative to the program's module root, slash-separated
	Line    int
	Col     int
	Start   int    // byte offset of the literal token, quotes included
	End     int    // byte offset just after it
	Literal string // the decoded value of the literal
	Policy  PolicyRef
}

// Location is "file:line", as status and events show it.
func (m Marker) Location() string { return fmt.Sprintf("%s:%d", m.File, m.Line) }

// MarkerError is a marker that cannot be honoured: not after a plain string literal, or
// malformed. It is a compile-time error of the program.
type MarkerError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *MarkerError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ScanFile returns the markers of one KCL file. file names it in positions and errors.
func ScanFile(file string, src []byte) ([]Marker, error) {
	toks, err := syntax.Scan(file, src)
	if err != nil {
		return nil, fmt.Errorf("scanning %s for image policy markers: %w", file, err)
	}
	var markers []Marker
	for i, c := range toks {
		if c.Kind != syntax.COMMENT {
			continue
		}
		ref, ok, err := parseMarkerComment(c.Text)
		if !ok {
			continue
		}
		if err != nil {
			return nil, &MarkerError{File: file, Line: c.Line, Col: c.Col, Msg: err.Error()}
		}
		prev, hasPrev := previousOnLine(toks, i)
		if !hasPrev {
			return nil, &MarkerError{File: file, Line: c.Line, Col: c.Col,
				Msg: fmt.Sprintf("image policy marker %q follows no string literal on its line", ref)}
		}
		if prev.Kind != syntax.STRING {
			return nil, &MarkerError{File: file, Line: c.Line, Col: c.Col,
				Msg: fmt.Sprintf("image policy marker %q must follow a plain string literal, not %q", ref, prev.Text)}
		}
		if !prev.Raw && strings.Contains(prev.Value, "${") {
			return nil, &MarkerError{File: file, Line: c.Line, Col: c.Col,
				Msg: fmt.Sprintf("image policy marker %q follows an interpolated string %s; mark a plain literal", ref, prev.Text)}
		}
		if prev.Long {
			return nil, &MarkerError{File: file, Line: c.Line, Col: c.Col,
				Msg: fmt.Sprintf("image policy marker %q follows a multi-line string; mark a plain one-line literal", ref)}
		}
		markers = append(markers, Marker{
			File: file, Line: prev.Line, Col: prev.Col, Start: prev.Start, End: prev.End,
			Literal: prev.Value, Policy: ref,
		})
	}
	return markers, nil
}

// previousOnLine is the token before toks[i] when it ends on the comment's line.
func previousOnLine(toks []syntax.Token, i int) (syntax.Token, bool) {
	for j := i - 1; j >= 0; j-- {
		t := toks[j]
		switch t.Kind {
		case syntax.INDENT, syntax.DEDENT:
			continue
		case syntax.NEWLINE:
			return syntax.Token{}, false
		}
		if t.EndLine != toks[i].Line {
			return syntax.Token{}, false
		}
		return t, true
	}
	return syntax.Token{}, false
}

// parseMarkerComment reports whether a comment is a marker (ok) and whether it is
// well-formed (err). Comments that merely mention the key in prose are not markers.
func parseMarkerComment(text string) (PolicyRef, bool, error) {
	body := strings.TrimSpace(strings.TrimPrefix(text, "#"))
	if !strings.HasPrefix(body, "{") || !strings.Contains(body, markerKey) {
		return PolicyRef{}, false, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return PolicyRef{}, true, fmt.Errorf("image policy marker %s is not valid JSON: %w", body, err)
	}
	raw, found := m[markerKey]
	if !found {
		return PolicyRef{}, false, nil
	}
	s, isString := raw.(string)
	if !isString {
		return PolicyRef{}, true, fmt.Errorf("image policy marker %s: the value must be a string \"namespace:name\"", body)
	}
	ref, err := ParsePolicyRef(s)
	return ref, true, err
}

// ParsePolicyRef parses "name", "ns:name" and "ns:name:tag|digest|name".
func ParsePolicyRef(s string) (PolicyRef, error) {
	parts := strings.Split(s, ":")
	bad := func(why string) (PolicyRef, error) {
		return PolicyRef{}, fmt.Errorf("image policy reference %q: %s", s, why)
	}
	for _, p := range parts {
		if p == "" {
			return bad("empty part")
		}
	}
	switch len(parts) {
	case 1:
		return PolicyRef{Name: parts[0]}, nil
	case 2:
		return PolicyRef{Namespace: parts[0], Name: parts[1]}, nil
	case 3:
		f := Field(parts[2])
		if f != FieldTag && f != FieldDigest && f != FieldName {
			return bad("the suffix must be tag, digest or name")
		}
		return PolicyRef{Namespace: parts[0], Name: parts[1], Field: f}, nil
	}
	return bad("want namespace:name[:tag|digest|name]")
}
