package syntax

// The AST mirrors the official engine's (kcl-lang/kcl crates/ast): same node names
// and fields in Go style. Optional children are nil. Every node embeds Span, so
// n.Pos() and n.End() give its extent.

// Node is any syntax tree node.
type Node interface {
	Pos() Position
	End() Position
}

// Stmt is a statement.
type Stmt interface {
	Node
	stmtNode()
}

// Expr is an expression.
type Expr interface {
	Node
	exprNode()
}

// Type is a type annotation.
type Type interface {
	Node
	typeNode()
}

// Module is one parsed file.
type Module struct {
	Span
	Filename string
	Doc      *Name // module docstring, nil when absent
	Body     []Stmt
	Comments []*Comment
}

// Name is a bare string with a position (the Rust Node<String>): schema names,
// attribute names, import paths, docstrings.
type Name struct {
	Span
	Value string
}

// Comment is a `# ...` comment; Text includes the leading '#'.
type Comment struct {
	Span
	Text string
}

// ---- Statements ----

// TypeAliasStmt is `type Name = T`.
type TypeAliasStmt struct {
	Span
	TypeName  *Identifier
	TypeValue *Name // the type's source text
	Ty        Type
}

// ExprStmt is one or more comma-separated expressions on a line.
type ExprStmt struct {
	Span
	Exprs []Expr
}

// UnificationStmt is `name: Schema {...}`.
type UnificationStmt struct {
	Span
	Target *Identifier
	Value  *SchemaExpr
}

// AssignStmt is `a = b = value` or `a: T = value`.
type AssignStmt struct {
	Span
	Targets []*Target
	Value   Expr
	Ty      Type // nil when not annotated
}

// AugAssignStmt is `a += value` and friends.
type AugAssignStmt struct {
	Span
	Target *Target
	Value  Expr
	Op     AugOp
}

// AssertStmt is `assert test if cond, msg`.
type AssertStmt struct {
	Span
	Test   Expr
	IfCond Expr // nil when absent
	Msg    Expr // nil when absent
}

// IfStmt is if/elif/else; elif chains are nested IfStmts in Orelse.
type IfStmt struct {
	Span
	Body   []Stmt
	Cond   Expr
	Orelse []Stmt
}

// ImportStmt is `import a.b.c as d`.
type ImportStmt struct {
	Span
	Path    *Name  // the import path as written, dots included
	RawPath string // same as Path.Value (the loader may rewrite Path)
	Name    string // the name bound in the module: AsName or the last path part
	AsName  *Name  // nil without `as`
	PkgName string // filled by the loader
}

// SchemaStmt is a schema, mixin or protocol definition.
type SchemaStmt struct {
	Span
	Doc            *Name
	Name           *Name
	ParentName     *Identifier
	ForHostName    *Identifier // protocol of a mixin: `schema AMixin for AProtocol`
	IsMixin        bool
	IsProtocol     bool
	Args           *Arguments
	Mixins         []*Identifier
	Body           []Stmt
	Decorators     []*CallExpr
	Checks         []*CheckExpr
	IndexSignature *SchemaIndexSignature
}

// SchemaIndexSignature is `[key: str]: T = default` or `[...str]: T`.
type SchemaIndexSignature struct {
	Span
	KeyName  *Name // nil when the key is unnamed
	Value    Expr  // default value, nil when absent
	AnyOther bool  // the `...` form
	KeyTy    Type
	ValueTy  Type
}

// SchemaAttr is an attribute declaration in a schema: `name?: T = value`.
type SchemaAttr struct {
	Span
	Doc        string
	Name       *Name
	Op         AugOp // AugNone when there is no value
	Value      Expr
	IsOptional bool
	Decorators []*CallExpr
	Ty         Type
}

// RuleStmt is a rule definition.
type RuleStmt struct {
	Span
	Doc         *Name
	Name        *Name
	ParentRules []*Identifier
	Decorators  []*CallExpr
	Checks      []*CheckExpr
	Args        *Arguments
	ForHostName *Identifier
}

func (*TypeAliasStmt) stmtNode()   {}
func (*ExprStmt) stmtNode()        {}
func (*UnificationStmt) stmtNode() {}
func (*AssignStmt) stmtNode()      {}
func (*AugAssignStmt) stmtNode()   {}
func (*AssertStmt) stmtNode()      {}
func (*IfStmt) stmtNode()          {}
func (*ImportStmt) stmtNode()      {}
func (*SchemaAttr) stmtNode()      {}
func (*SchemaStmt) stmtNode()      {}
func (*RuleStmt) stmtNode()        {}

// ---- Expressions ----

// Target is an assignment target: `a`, `a.b`, `a[0].c`.
type Target struct {
	Span
	Name    *Name
	Paths   []MemberOrIndex
	PkgPath string
}

// MemberOrIndex is one step of a Target path: exactly one field is set.
type MemberOrIndex struct {
	Member *Name
	Index  Expr
}

// Identifier is a dotted name `a.b.c` (also used for schema and type names).
type Identifier struct {
	Span
	Names   []*Name
	PkgPath string // set when the first name is an import (`pkg.Schema`), by the loader
	Ctx     ExprContext
}

// Parts are the names of a dotted name, in order.
func (id *Identifier) Parts() []string {
	parts := make([]string, len(id.Names))
	for i, n := range id.Names {
		parts[i] = n.Value
	}
	return parts
}

// Name joins the parts with dots.
func (id *Identifier) Name() string {
	switch len(id.Names) {
	case 0:
		return ""
	case 1:
		return id.Names[0].Value
	}
	n := id.Names[0].Value
	for _, p := range id.Names[1:] {
		n += "." + p.Value
	}
	return n
}

// UnaryExpr is `-x`, `+x`, `~x`, `not x`.
type UnaryExpr struct {
	Span
	Op      UnaryOp
	Operand Expr
}

// BinaryExpr is `left op right` (arithmetic, bitwise, and/or, as).
type BinaryExpr struct {
	Span
	Left  Expr
	Op    BinOp
	Right Expr
}

// IfExpr is `body if cond else orelse`.
type IfExpr struct {
	Span
	Body   Expr
	Cond   Expr
	Orelse Expr
}

// SelectorExpr is `value.attr` or `value?.attr`.
type SelectorExpr struct {
	Span
	Value       Expr
	Attr        *Identifier
	Ctx         ExprContext
	HasQuestion bool
}

// CallExpr is `func(args, kw=value)`.
type CallExpr struct {
	Span
	Func     Expr
	Args     []Expr
	Keywords []*Keyword
}

// ParenExpr is `(expr)`.
type ParenExpr struct {
	Span
	Expr Expr
}

// QuantExpr is `all|any|map|filter x, y in target { test if cond }`.
type QuantExpr struct {
	Span
	Target    Expr
	Variables []*Identifier
	Op        QuantOperation
	Test      Expr
	IfCond    Expr
	Ctx       ExprContext
}

// ListExpr is `[a, b, *c]`.
type ListExpr struct {
	Span
	Elts []Expr
	Ctx  ExprContext
}

// ListIfItemExpr is an `if cond: a, b elif ...: c else: d` item inside a list.
// Orelse is another ListIfItemExpr (elif) or a ListExpr (else), nil when absent.
type ListIfItemExpr struct {
	Span
	IfCond Expr
	Exprs  []Expr
	Orelse Expr
}

// ListComp is `[elt for x in y if c]`.
type ListComp struct {
	Span
	Elt        Expr
	Generators []*CompClause
}

// StarredExpr is `*value` inside a list.
type StarredExpr struct {
	Span
	Value Expr
	Ctx   ExprContext
}

// DictComp is `{k: v for k, v in y}`.
type DictComp struct {
	Span
	Entry      *ConfigEntry
	Generators []*CompClause
}

// ConfigIfEntryExpr is an `if cond: k: v elif ...` entry inside a config.
// Orelse is another ConfigIfEntryExpr (elif) or a ConfigExpr (else), nil when absent.
type ConfigIfEntryExpr struct {
	Span
	IfCond Expr
	Items  []*ConfigEntry
	Orelse Expr
}

// CompClause is `for a, b in iter if c1 if c2`.
type CompClause struct {
	Span
	Targets []*Identifier
	Iter    Expr
	Ifs     []Expr
}

// SchemaExpr is `Name(args) {config}`; Config is a *ConfigExpr or *ConfigIfEntryExpr-free
// config (a *ConfigExpr or *DictComp).
type SchemaExpr struct {
	Span
	Name   *Identifier
	Args   []Expr
	Kwargs []*Keyword
	Config Expr
}

// ConfigExpr is `{k: v, k = v, k += v, **d, if c: ...}`.
type ConfigExpr struct {
	Span
	Items []*ConfigEntry
}

// ConfigEntry is one config item. Key is nil for `**value` unpacking and for
// `if` entries (whose Value is a *ConfigIfEntryExpr). A dotted key `a.b.c: v`
// keeps Key as an *Identifier with three names.
type ConfigEntry struct {
	Span
	Key       Expr
	Value     Expr
	Operation ConfigEntryOperation
}

// CheckExpr is one line of a check block: `test if cond, msg`.
type CheckExpr struct {
	Span
	Test   Expr
	IfCond Expr
	Msg    Expr
}

// LambdaExpr is `lambda x: int, y = 1 -> int { body }`.
type LambdaExpr struct {
	Span
	Args     *Arguments
	Body     []Stmt
	ReturnTy Type
}

// Subscript is `value[index]`, `value[lower:upper:step]` or with `?[`.
type Subscript struct {
	Span
	Value       Expr
	Index       Expr
	Lower       Expr
	Upper       Expr
	Step        Expr
	Ctx         ExprContext
	HasQuestion bool
}

// Keyword is `arg=value` in a call.
type Keyword struct {
	Span
	Arg   *Identifier
	Value Expr
}

// Arguments are the parameters of a schema, rule or lambda; the three slices have
// the same length and Defaults/TyList entries are nil when absent.
type Arguments struct {
	Span
	Args     []*Identifier
	Defaults []Expr
	TyList   []Type
}

// Compare is a comparison chain `a < b <= c`.
type Compare struct {
	Span
	Left        Expr
	Ops         []CmpOp
	Comparators []Expr
}

// NumberLit is an int or float literal, with an optional unit suffix such as "Gi".
type NumberLit struct {
	Span
	BinarySuffix string // "" when absent
	IsFloat      bool
	Int          int64
	Float        float64
	Raw          string // source text
}

// StringLit is a string literal without interpolation.
type StringLit struct {
	Span
	IsLongString bool   // triple quoted
	RawValue     string // source text including quotes and prefixes
	Value        string // decoded value
}

// NameConstantLit is True, False, None or Undefined.
type NameConstantLit struct {
	Span
	Value NameConstant
}

// JoinedString is a string literal with `${...}` interpolation. Values holds
// *StringLit parts and *FormattedValue parts in order.
type JoinedString struct {
	Span
	IsLongString bool
	Values       []Expr
	RawValue     string
}

// FormattedValue is one `${value}` or `${value:spec}` part.
type FormattedValue struct {
	Span
	IsLongString bool
	Value        Expr
	FormatSpec   string // e.g. "#json"; "" when absent
}

// MissingExpr stands for an expression the parser could not read.
type MissingExpr struct {
	Span
}

func (*Target) exprNode()            {}
func (*Identifier) exprNode()        {}
func (*UnaryExpr) exprNode()         {}
func (*BinaryExpr) exprNode()        {}
func (*IfExpr) exprNode()            {}
func (*SelectorExpr) exprNode()      {}
func (*CallExpr) exprNode()          {}
func (*ParenExpr) exprNode()         {}
func (*QuantExpr) exprNode()         {}
func (*ListExpr) exprNode()          {}
func (*ListIfItemExpr) exprNode()    {}
func (*ListComp) exprNode()          {}
func (*StarredExpr) exprNode()       {}
func (*DictComp) exprNode()          {}
func (*ConfigIfEntryExpr) exprNode() {}
func (*CompClause) exprNode()        {}
func (*SchemaExpr) exprNode()        {}
func (*ConfigExpr) exprNode()        {}
func (*CheckExpr) exprNode()         {}
func (*LambdaExpr) exprNode()        {}
func (*Subscript) exprNode()         {}
func (*Keyword) exprNode()           {}
func (*Arguments) exprNode()         {}
func (*Compare) exprNode()           {}
func (*NumberLit) exprNode()         {}
func (*StringLit) exprNode()         {}
func (*NameConstantLit) exprNode()   {}
func (*JoinedString) exprNode()      {}
func (*FormattedValue) exprNode()    {}
func (*MissingExpr) exprNode()       {}

// ---- Types ----

// AnyType is `any`.
type AnyType struct{ Span }

// NamedType is a schema or alias name, possibly qualified: `pkg.Schema`.
type NamedType struct {
	Span
	Identifier *Identifier
}

// BasicType is bool, int, float or str.
type BasicType struct {
	Span
	Kind BasicTypeKind
}

// ListType is `[T]`; InnerType is nil for `[]`.
type ListType struct {
	Span
	InnerType Type
}

// DictType is `{K:V}`; either side may be nil (`{str:}`).
type DictType struct {
	Span
	KeyType   Type
	ValueType Type
}

// UnionType is `A | B | C`.
type UnionType struct {
	Span
	TypeElements []Type
}

// LiteralType is a literal used as a type: `"a"`, `1`, `1Gi`, `2.0`, `True`.
type LiteralType struct {
	Span
	Kind   LiteralTypeKind
	Bool   bool
	Int    int64
	Suffix string // unit suffix of an int literal type
	Float  float64
	Str    string
}

// FunctionType is `(A, B) -> R`; ParamsTy is nil for `()`, RetTy nil when absent.
type FunctionType struct {
	Span
	ParamsTy []Type
	RetTy    Type
}

func (*AnyType) typeNode()      {}
func (*NamedType) typeNode()    {}
func (*BasicType) typeNode()    {}
func (*ListType) typeNode()     {}
func (*DictType) typeNode()     {}
func (*UnionType) typeNode()    {}
func (*LiteralType) typeNode()  {}
func (*FunctionType) typeNode() {}
