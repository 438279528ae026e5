package value

import "fmt"

// Error kinds as the official engine prints them.
const (
	KindEvaluation    = "EvaluationError"
	KindType          = "TypeError"
	KindAttribute     = "AttributeError"
	KindAssertion     = "AssertionError"
	KindIntOverflow   = "IntOverflow"
	KindFloatOverflow = "FloatOverflow"
	KindSchemaCheck   = "SchemaCheckFailure"
	KindRecursion     = "RecursionError"
	KindLimit         = "LimitError"
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
