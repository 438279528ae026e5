package syntax

import "fmt"

// Position is a place in a source file. Line and Col are 1-based and Col counts
// characters (runes), which is how the official engine prints `file:line:col`.
// Offset is the 0-based byte offset, for callers that rewrite source bytes.
type Position struct {
	File   string
	Line   int
	Col    int
	Offset int
}

// IsValid reports whether the position was set by the parser.
func (p Position) IsValid() bool { return p.Line > 0 }

func (p Position) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Span is embedded in every AST node: the node starts at StartPos and ends just
// before EndPos.
type Span struct {
	StartPos Position
	EndPos   Position
}

// Pos is where the node starts.
func (s *Span) Pos() Position { return s.StartPos }

// End is just after the node's last character.
func (s *Span) End() Position { return s.EndPos }

// SetSpan is used by the parser and by tools that synthesize nodes.
func (s *Span) SetSpan(start, end Position) { s.StartPos, s.EndPos = start, end }
