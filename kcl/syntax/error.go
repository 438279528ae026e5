package syntax

import (
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
)

// Error is a syntax error located where the official engine locates it.
type Error struct {
	Pos  Position
	Kind string // errkind.InvalidSyntax (Tab and Indentation are the official kinds of no error it reports)
	Msg  string
	// EndOfLine marks a position past the end of its line, moved back to
	// the line's last column: the official engine knows a column there, so
	// its renderer draws the caret even at column 1.
	EndOfLine bool
	// Rest holds the errors that follow this one in the same file when ParseFile
	// returns it; the official engine prints them all, in this order.
	Rest ErrorList
}

// Code is the diagnostic code printed in brackets, e.g. "E1001".
func (e *Error) Code() string {
	return errkind.Code(e.Kind)
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
