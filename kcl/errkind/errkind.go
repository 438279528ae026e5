// Package errkind names every kind of error the engine reports, spelled as the
// official engine prints them, with the official diagnostic codes. It is the
// engine's bottom floor: syntax, value, the static checks, eval, the runner and
// the CLI all use these names, and none spells a kind itself.
package errkind

// Syntax errors. The parser reports all of them as InvalidSyntax, as the
// official engine does; the other two exist for callers that classify errors.
const (
	InvalidSyntax = "InvalidSyntax"
	Tab           = "TabError"
	Indentation   = "IndentationError"
)

// Errors of the official resolver, which the static checks reproduce (eval
// raises some of them too, where the official evaluator does).
const (
	Compile          = "CompileError"
	Type             = "TypeError"
	Name             = "NameError"
	Immutable        = "ImmutableError"
	UniqueKey        = "UniqueKeyError"
	IllegalInherit   = "IllegalInheritError"
	IllegalAttribute = "IllegalAttributeError"
	IllegalParameter = "IllegalParameterError"
	IndexSignature   = "IndexSignatureError"
	CannotFindModule = "CannotFindModule"
	RecursiveLoad    = "RecursiveLoad"
)

// Run-time errors. The official CLI prints all of them as EvaluationError
// (E3M38); the finer kinds say which check failed.
const (
	Evaluation    = "EvaluationError"
	Attribute     = "AttributeError"
	Assertion     = "AssertionError"
	IntOverflow   = "IntOverflow"
	FloatOverflow = "FloatOverflow"
	SchemaCheck   = "SchemaCheckFailure"
	Recursion     = "RecursionError"
	Limit         = "LimitError"
	Timeout       = "TimeoutError"
)

// Errors of the runner itself, which the official engine has no kind for.
const (
	// Internal marks an engine bug turned into an error instead of a crash.
	Internal = "InternalError"
	// PathRefused marks a settings or entry file outside the program's root.
	PathRefused = "PathRefused"
	// Plain marks the runner's errors that the official CLI prints as a bare
	// message with no kind: entries naming no KCL file ("No input KCL
	// files"), an invalid -O spec.
	Plain = "Plain"
)

// RuntimeCode is the code of every run-time error.
const RuntimeCode = "E3M38"

// codes are the official diagnostic codes of the kinds that are not run-time
// errors.
var codes = map[string]string{
	InvalidSyntax:    "E1001",
	Tab:              "E1002",
	Indentation:      "E1003",
	IllegalParameter: "E1001",
	Immutable:        "E1001",
	IndexSignature:   "E1001",
	Name:             "E1001",
	CannotFindModule: "E2F04",
	Compile:          "E2L23",
	Type:             "E2G22",
	IllegalInherit:   "E2D34",
	UniqueKey:        "E2L28",
	IllegalAttribute: "E2A31",
	RecursiveLoad:    "E2F06",
}

// Code returns the official diagnostic code of kind: RuntimeCode for run-time
// kinds and any kind the table does not know.
func Code(kind string) string {
	if c, ok := codes[kind]; ok {
		return c
	}
	return RuntimeCode
}

// Printed is the kind the official CLI prints for kind: a run-time error is
// printed as an EvaluationError, a Plain one with no kind ("").
func Printed(kind string) string {
	if kind == Plain {
		return ""
	}
	if _, ok := codes[kind]; ok {
		return kind
	}
	return Evaluation
}

// IsSyntax reports whether kind is one of the parser's.
func IsSyntax(kind string) bool {
	return kind == InvalidSyntax || kind == Tab || kind == Indentation
}
