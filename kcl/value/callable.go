package value

import "github.com/kcl-lang/flux-kcl-controller/kcl/errkind"

// Callable is anything a KCL program can call: builtins, module functions, lambdas,
// schema types.
type Callable interface {
	Value
	Name() string
	Call(t *Thread, args []Value, kwargs []KV) (Value, error)
}

// BuiltinFunc implements a builtin. b.Recv is the bound receiver for methods
// ("abc".upper), nil otherwise.
type BuiltinFunc func(t *Thread, b *Builtin, args []Value, kwargs []KV) (Value, error)

// Builtin is a function implemented in Go: builtins, string methods, module members.
type Builtin struct {
	name string
	fn   BuiltinFunc
	Recv Value
}

// NewBuiltin returns a builtin named name.
func NewBuiltin(name string, fn BuiltinFunc) *Builtin { return &Builtin{name: name, fn: fn} }

// BindReceiver returns a copy of b bound to recv, for methods.
func (b *Builtin) BindReceiver(recv Value) *Builtin {
	return &Builtin{name: b.name, fn: b.fn, Recv: recv}
}

func (b *Builtin) Name() string   { return b.name }
func (b *Builtin) Type() string   { return TypeFunction }
func (b *Builtin) Truth() bool    { return true }
func (b *Builtin) String() string { return TypeFunction }

// Call runs the builtin.
func (b *Builtin) Call(t *Thread, args []Value, kwargs []KV) (Value, error) {
	return b.fn(t, b, args, kwargs)
}

// Function is a callable defined by the evaluator (a lambda, or a schema type when
// IsType is set, which typeof() reports as "type"). Impl does the work; Closure is
// free for the evaluator.
type Function struct {
	FuncName string
	Impl     func(t *Thread, args []Value, kwargs []KV) (Value, error)
	Closure  any
	// IsType marks a type object (a schema type), as the runtime's runtime_type.
	IsType bool
}

func (f *Function) Name() string { return f.FuncName }
func (f *Function) Type() string {
	if f.IsType {
		return TypeType
	}
	return TypeFunction
}
func (f *Function) Truth() bool    { return true }
func (f *Function) String() string { return TypeFunction }

// Call runs the function.
func (f *Function) Call(t *Thread, args []Value, kwargs []KV) (Value, error) {
	if f.Impl == nil {
		return nil, Errorf(errkind.Evaluation, "'%s' is not callable", f.FuncName)
	}
	return f.Impl(t, args, kwargs)
}

// Module is a system module (import yaml) or, for the evaluator, a user package.
type Module struct {
	Name    string
	Members map[string]Value
}

func (m *Module) Type() string   { return TypeModule }
func (m *Module) Truth() bool    { return true }
func (m *Module) String() string { return "<module '" + m.Name + "'>" }

// Attr returns member name.
func (m *Module) Attr(name string) (Value, bool) {
	v, ok := m.Members[name]
	return v, ok
}
