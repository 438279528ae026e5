package syntax

import "fmt"

// Error kinds and codes as the official engine prints them
// (`error[E1001]: InvalidSyntax`). Every error of this package is
// InvalidSyntax: the official engine reports tab and indentation problems under
// that kind too. The other kinds exist for callers that classify errors.
const (
	KindInvalidSyntax    = "InvalidSyntax"
	KindTabError         = "TabError"
	KindIndentationError = "IndentationError"
)

// Codes for the kinds above.
var kindCodes = map[string]string{
	KindInvalidSyntax:    "E1001",
	KindTabError:         "E1002",
	KindIndentationError: "E1003",
}

// Error is a syntax error located where the official engine locates it.
type Error struct {
	Pos  Position
	Kind string // one of the Kind* constants
	Msg  string
	// Rest holds the errors that follow this one in the same file when ParseFile
	// returns it; the official engine prints them all, in this order.
	Rest ErrorList
}

// Code is the diagnostic code printed in brackets, e.g. "E1001".
func (e *Error) Code() string {
	if c, ok := kindCodes[e.Kind]; ok {
		return c
	}
	return "E1001"
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Kind, e.Pos, e.Msg)
}

// ErrorList holds every syntax error of a file in source order; ParseFile returns
// the first as *Error, and this list is available from ParseFileAll.
type ErrorList []*Error

func (l ErrorList) Error() string {
	if len(l) == 0 {
		return "no errors"
	}
	if len(l) == 1 {
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0].Error(), len(l)-1)
}
