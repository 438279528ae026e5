package syntax

// Operators, contexts and small enums of the AST.

// AugOp is an assignment operator. AugNone means "no operator" where the Rust AST
// has Option<AugOp>.
type AugOp int

const (
	AugNone AugOp = iota
	AugAssign
	AugAdd
	AugSub
	AugMul
	AugDiv
	AugMod
	AugPow
	AugFloorDiv
	AugLShift
	AugRShift
	AugBitXor
	AugBitAnd
	AugBitOr
)

var augSymbols = [...]string{"", "=", "+=", "-=", "*=", "/=", "%=", "**=", "//=", "<<=", ">>=", "^=", "&=", "|="}

func (op AugOp) Symbol() string { return augSymbols[op] }
func (op AugOp) String() string { return op.Symbol() }

// BinOp returns the binary operator of an augmented assignment (`+=` → Add).
func (op AugOp) BinOp() (BinOp, bool) {
	if op < AugAdd {
		return 0, false
	}
	return BinOp(op - AugAdd), true
}

// BinOp is a binary operator.
type BinOp int

const (
	Add BinOp = iota
	Sub
	Mul
	Div
	Mod
	Pow
	FloorDiv
	LShift
	RShift
	BitXor
	BitAnd
	BitOr
	And
	Or
	As
)

var binSymbols = [...]string{"+", "-", "*", "/", "%", "**", "//", "<<", ">>", "^", "&", "|", "and", "or", "as"}

func (op BinOp) Symbol() string { return binSymbols[op] }
func (op BinOp) String() string { return op.Symbol() }

// UnaryOp is a unary operator.
type UnaryOp int

const (
	UAdd UnaryOp = iota
	USub
	Invert
	Not
)

var unarySymbols = [...]string{"+", "-", "~", "not"}

func (op UnaryOp) Symbol() string { return unarySymbols[op] }
func (op UnaryOp) String() string { return op.Symbol() }

// CmpOp is a comparison operator.
type CmpOp int

const (
	Eq CmpOp = iota
	NotEq
	Lt
	LtE
	Gt
	GtE
	Is
	In
	NotIn
	CmpNot
	IsNot
)

var cmpSymbols = [...]string{"==", "!=", "<", "<=", ">", ">=", "is", "in", "not in", "not", "is not"}

func (op CmpOp) Symbol() string { return cmpSymbols[op] }
func (op CmpOp) String() string { return op.Symbol() }

// ExprContext tells loads from stores.
type ExprContext int

const (
	Load ExprContext = iota
	Store
)

// QuantOperation is the quantifier of a QuantExpr.
type QuantOperation int

const (
	QuantAll QuantOperation = iota
	QuantAny
	QuantFilter
	QuantMap
)

var quantNames = [...]string{"all", "any", "filter", "map"}

func (q QuantOperation) String() string { return quantNames[q] }

// ConfigEntryOperation is how a config entry combines with an existing key.
type ConfigEntryOperation int

const (
	OpUnion    ConfigEntryOperation = iota // `:`
	OpOverride                             // `=`
	OpInsert                               // `+=`
)

var configOpSymbols = [...]string{":", "=", "+="}

func (op ConfigEntryOperation) Symbol() string { return configOpSymbols[op] }
func (op ConfigEntryOperation) String() string { return op.Symbol() }

// NameConstant is True, False, None or Undefined.
type NameConstant int

const (
	True NameConstant = iota
	False
	None
	Undefined
)

var nameConstantSymbols = [...]string{"True", "False", "None", "Undefined"}

func (c NameConstant) Symbol() string { return nameConstantSymbols[c] }
func (c NameConstant) String() string { return c.Symbol() }

// BasicTypeKind is one of the builtin scalar types.
type BasicTypeKind int

const (
	TypeBool BasicTypeKind = iota
	TypeInt
	TypeFloat
	TypeStr
)

var basicTypeNames = [...]string{"bool", "int", "float", "str"}

func (k BasicTypeKind) String() string { return basicTypeNames[k] }

// LiteralTypeKind tells which field of a LiteralType holds the value.
type LiteralTypeKind int

const (
	LitBool LiteralTypeKind = iota
	LitInt
	LitFloat
	LitStr
)

// NumberSuffixes are the unit suffixes allowed after a number literal.
var NumberSuffixes = []string{"n", "u", "m", "k", "K", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi"}

// IsNumberSuffix reports whether s is a unit suffix.
func IsNumberSuffix(s string) bool {
	for _, x := range NumberSuffixes {
		if x == s {
			return true
		}
	}
	return false
}
