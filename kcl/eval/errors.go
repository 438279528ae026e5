package eval

import (
	"errors"
	"fmt"

	"github.com/kcl-lang/flux-kcl-controller/kcl/errkind"
	"github.com/kcl-lang/flux-kcl-controller/kcl/syntax"
	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// Error is a program error with the position the official engine reports.
// Col is 0 when the engine reports only a line.
type Error struct {
	Kind string
	Msg  string
	Pos  syntax.Position
	// EndOfLine is syntax.Error's: a syntax error's caret is drawn at column 1.
	EndOfLine bool
	// Labels are further located messages (where a variable was declared,
	// which check failed).
	Labels []Label
	// Note is an optional hint printed after the diagnostic.
	Note string
	// Suggestions are hints printed as "suggestion: ..." lines.
	Suggestions []string
	// missing marks an import that names no folder or file, missingPkg its
	// package path: the static pass still runs, with that package empty.
	missing    bool
	missingPkg string
	// Also are further errors reported with this one (the static pass
	// reports every error it finds, as the official engine does).
	Also []*Error
	// Detail is the message runtime.catch() returns, when it differs from Msg.
	Detail string
	// atCall marks a lambda argument of the wrong type: the runtime reports
	// it at the line of the call, not of the lambda.
	atCall bool
	// args describes an argument count or keyword mismatch, which the call
	// site words with the callee's name and the argument's position.
	args *argMismatch
}

type argMismatch struct {
	want, got int
	keyword   string
}

// Label is a secondary location of an error.
type Label struct {
	Pos syntax.Position
	Msg string
}

// ErrorMessage is what runtime.catch() reports.
func (e *Error) ErrorMessage() string {
	if e.Detail != "" {
		return e.Detail
	}
	return e.Msg
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Kind, e.Pos, e.Msg)
}

func errorAt(pos syntax.Position, kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Pos: pos}
}

// locate attaches a position to an error raised by a value operation, keeping
// errors that already carry one.
func locate(err error, pos syntax.Position) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		// An error raised where no position was known (a schema re-run by a
		// union) takes the one of the expression that caused it.
		if e.Pos.File == "" && e.Pos.Line == 0 {
			e.Pos = pos
		}
		return err
	}
	var ve *value.Error
	if errors.As(err, &ve) {
		kind := ve.Kind
		return &Error{Kind: kind, Msg: ve.Msg, Pos: pos}
	}
	var se *syntax.Error
	if errors.As(err, &se) {
		return syntaxError(se)
	}
	return &Error{Kind: errkind.Evaluation, Msg: err.Error(), Pos: pos}
}

// lineOnly drops the column: the official runtime locates most run-time errors
// at a line only.
func lineOnly(p syntax.Position) syntax.Position {
	p.Col = 0
	return p
}

// syntaxError is a file's syntax errors as one Error: the first, with the
// others in Also, since the official engine reports all of them.
func syntaxError(se *syntax.Error) *Error {
	e := &Error{Kind: se.Kind, Msg: se.Msg, Pos: se.Pos, EndOfLine: se.EndOfLine}
	for _, r := range se.Rest {
		e.Also = append(e.Also, &Error{Kind: r.Kind, Msg: r.Msg, Pos: r.Pos, EndOfLine: r.EndOfLine})
	}
	return e
}

func (e *Error) isSyntax() bool {
	switch e.Kind {
	case errkind.InvalidSyntax, errkind.Tab, errkind.Indentation:
		return true
	}
	return false
}
