package value

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Error is a run-time error raised by a value operation, builtin or module. It has
// no position: the evaluator locates it at the expression being evaluated.
type Error struct {
	Kind string
	Msg  string
	// Err is an underlying error (e.g. from a decoder), for errors.Is/As.
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns a *Error of the given kind.
func Errorf(kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// ErrorMessage is the bare message of a program error, without kind or
// position: the error's ErrorMessage() if it has one, else a string field named
// Msg or Message on the (pointed-to) error struct, as Error and the evaluator's
// located errors carry, else the error text. runtime.catch uses it.
func ErrorMessage(err error) string {
	var m interface{ ErrorMessage() string }
	if errors.As(err, &m) {
		return m.ErrorMessage()
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		rv := reflect.ValueOf(e)
		if rv.Kind() == reflect.Pointer {
			rv = rv.Elem()
		}
		if rv.Kind() != reflect.Struct {
			continue
		}
		for _, name := range []string{"Msg", "Message"} {
			if f := rv.FieldByName(name); f.IsValid() && f.Kind() == reflect.String {
				return f.String()
			}
		}
	}
	return strings.TrimSpace(err.Error())
}
