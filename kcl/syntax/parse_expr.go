package syntax

import (
	"math/big"
	"strconv"
	"strings"
)

// Expression parsing.

func (p *parser) parseExpr() Expr {
	p.enter()
	defer p.leave()
	if p.tok.Kind == INDENT {
		p.errorAt(p.tok.Pos(p.file), "unexpected token '"+tokenString(p.tok)+"'")
		p.bump()
	}
	start := p.startPos()
	operand := p.parseSimpleExpr()
	if p.isKw("if") {
		return p.parseIfExpr(operand, start)
	}
	return operand
}

func (p *parser) parseSimpleExpr() Expr {
	p.enter()
	defer p.leave()
	return p.parseBinaryExpr(precLowest)
}

func (p *parser) parseIfExpr(body Expr, start Position) Expr {
	p.bump()
	cond := p.parseSimpleExpr()
	e := &IfExpr{Body: body, Cond: cond}
	if p.isKw("else") {
		p.bump()
		e.Orelse = p.parseExpr()
	} else {
		p.tokenError([]string{"else"}, p.tok)
		e.Orelse = p.missingExpr()
	}
	e.SetSpan(start, p.endPos())
	return e
}

const (
	precLowest = iota
	precAs
	precLogicOr
	precLogicAnd
	precEquals
	precInOrNotIn
	precIsOrIsNot
	precLessGreater
	precBitOr
	precBitXor
	precBitAnd
	precShift
	precSum
	precProduct
	precPower
	precPrefix
)

var binOpTokens = map[TokenKind]BinOp{
	PLUS: Add, MINUS: Sub, STAR: Mul, SLASH: Div, PERCENT: Mod, STARSTAR: Pow, SLASHSLASH: FloorDiv,
	LTLT: LShift, GTGT: RShift, CARET: BitXor, AMP: BitAnd, PIPE: BitOr,
}

var cmpOpTokens = map[TokenKind]CmpOp{EQEQ: Eq, NEQ: NotEq, LT: Lt, LTEQ: LtE, GT: Gt, GTEQ: GtE}

func (p *parser) precedence(t *Token) int {
	switch t.Keyword() {
	case "as":
		return precAs
	case "or":
		return precLogicOr
	case "and":
		return precLogicAnd
	case "in":
		return precInOrNotIn
	case "is":
		return precIsOrIsNot
	}
	switch t.Kind {
	case TILDE, BANG:
		return precPrefix
	case PLUS, MINUS:
		return precSum
	case STAR, SLASH, PERCENT, SLASHSLASH:
		return precProduct
	case STARSTAR:
		return precPower
	case CARET:
		return precBitXor
	case AMP:
		return precBitAnd
	case PIPE:
		return precBitOr
	case LTLT, GTGT:
		return precShift
	case EQEQ, NEQ:
		return precEquals
	case LT, LTEQ, GT, GTEQ:
		return precLessGreater
	}
	return precLowest
}

var allBinOrCmpSymbols = []string{"+", "-", "*", "/", "%", "**", "//", "<<", ">>", "^", "&", "|", "and", "or", "as",
	"==", "!=", "<", "<=", ">", ">=", "is", "in", "not in", "not", "is not"}

// parseBinaryExpr is precedence climbing with the official engine's handling
// of comparison chains (a < b < c is one Compare).
func (p *parser) parseBinaryExpr(prec1 int) Expr {
	start := p.startPos()
	x := p.parseUnaryExpr()
	var cmp *Compare
	for {
		usePeek := false
		oprec := p.precedence(p.tok)
		next := p.peek()
		if p.isKw("not") && next.isKeyword("in") {
			oprec = precInOrNotIn
			usePeek = true
		}
		if p.isKw("is") && next.isKeyword("not") {
			oprec = precIsOrIsNot
			usePeek = true
		}
		if oprec <= prec1 {
			if cmp != nil {
				cmp.SetSpan(start, p.endPos())
				return cmp
			}
			return x
		}
		isCmp := false
		var bop BinOp
		var cop CmpOp
		switch {
		case usePeek && p.isKw("not"):
			isCmp, cop = true, NotIn
		case usePeek:
			isCmp, cop = true, IsNot
		default:
			if op, ok := binOpTokens[p.tok.Kind]; ok {
				bop = op
			} else if op, ok := cmpOpTokens[p.tok.Kind]; ok {
				isCmp, cop = true, op
			} else {
				switch p.tok.Keyword() {
				case "and":
					bop = And
				case "or":
					bop = Or
				case "as":
					bop = As
				case "is":
					isCmp, cop = true, Is
				case "in":
					isCmp, cop = true, In
				case "not":
					isCmp, cop = true, CmpNot
				default:
					p.tokenError(allBinOrCmpSymbols, p.tok)
					return x
				}
			}
		}
		p.bump()
		if usePeek {
			p.bump()
		}
		y := p.parseBinaryExpr(oprec)
		if isCmp {
			if cmp == nil {
				cmp = &Compare{Left: x}
			}
			cmp.Ops = append(cmp.Ops, cop)
			cmp.Comparators = append(cmp.Comparators, y)
			continue
		}
		if cmp != nil {
			cmp.SetSpan(start, p.endPos())
			x = cmp
			cmp = nil
		}
		b := &BinaryExpr{Left: x, Op: bop, Right: y}
		b.SetSpan(start, p.endPos())
		x = b
	}
}

func (p *parser) parseUnaryExpr() Expr {
	start := p.startPos()
	var op UnaryOp
	switch {
	case p.tok.Kind == TILDE:
		op = Invert
	case p.tok.Kind == BANG || p.isKw("not"):
		op = Not
	case p.tok.Kind == PLUS:
		op = UAdd
	case p.tok.Kind == MINUS:
		op = USub
	default:
		return p.parsePrimaryExpr()
	}
	p.bump()
	operand := p.parsePrimaryExpr()
	u := &UnaryExpr{Op: op, Operand: operand}
	u.SetSpan(start, p.endPos())
	return u
}

func (p *parser) parsePrimaryExpr() Expr {
	p.enter()
	defer p.leave()
	start := p.startPos()
	operand := p.parseOperandExpr()
	for {
		switch p.tok.Kind {
		case DOT:
			operand = p.parseSelectorExpr(operand, start)
		case QUESTION:
			switch p.peek().Kind {
			case DOT:
				operand = p.parseSelectorExpr(operand, start)
			case LBRACKET:
				operand = p.parseSubscriptExpr(operand, start)
			default:
				return operand
			}
		case LPAREN:
			c := p.parseCall(operand)
			c.SetSpan(start, p.endPos())
			operand = c
		case LBRACKET:
			operand = p.parseSubscriptExpr(operand, start)
		default:
			return operand
		}
	}
}

func (p *parser) parseSelectorExpr(value Expr, start Position) Expr {
	s := &SelectorExpr{Value: value}
	if p.tok.Kind == QUESTION {
		p.bump()
		s.HasQuestion = true
	}
	p.bump() // .
	if p.tok.Kind == IDENT {
		s.Attr = p.parseIdentifier()
		s.SetSpan(start, p.endPos())
		return s
	}
	p.tokenError([]string{"identifier"}, p.tok)
	at := p.tok.Pos(p.file)
	n := &Name{}
	n.SetSpan(at, at)
	s.Attr = &Identifier{Names: []*Name{n}}
	s.Attr.SetSpan(at, at)
	s.SetSpan(start, at)
	return s
}

// parseCall parses `(args)` after func; the caller sets the span.
func (p *parser) parseCall(fn Expr) *CallExpr {
	c := &CallExpr{Func: fn}
	if p.tok.Kind == LPAREN {
		p.bump()
	} else {
		p.tokenError([]string{"("}, p.tok)
	}
	hasNewline := false
	if p.tok.Kind == NEWLINE {
		p.skipNewlines()
		p.cleanAllIndentations()
		if p.tok.Kind == RPAREN {
			p.bump()
			c.SetSpan(fn.Pos(), p.endPos())
			return c
		}
		hasNewline = true
	}
	if p.tok.Kind != RPAREN {
		c.Args, c.Keywords = p.parseArgumentsExpr(hasNewline)
	}
	if p.tok.Kind == COMMA {
		p.bump()
	}
	if p.tok.Kind == RPAREN {
		p.bump()
	} else {
		p.tokenError([]string{")"}, p.tok)
	}
	c.SetSpan(fn.Pos(), p.endPos())
	return c
}

func (p *parser) parseArgumentsExpr(hasNewline bool) ([]Expr, []*Keyword) {
	var args []Expr
	var kws []*Keyword
	hasKeyword := false
	for {
		m := p.mark()
		p.cleanAllIndentations()
		if p.tok.Kind == RPAREN || p.tok.Kind == EOF || (p.tok.Kind == NEWLINE && !hasNewline) || p.isKw("for") {
			break
		}
		t := p.tok
		start := p.startPos()
		e := p.parseExpr()
		if p.tok.Kind == EQ {
			argEnd := p.endPos()
			p.bump()
			id, ok := e.(*Identifier)
			if !ok {
				p.tokenError([]string{"identifier"}, p.tok)
				id = &Identifier{}
				id.SetSpan(e.Pos(), e.End())
			} else {
				id.SetSpan(start, argEnd)
			}
			kw := &Keyword{Arg: id, Value: p.parseExpr()}
			kw.SetSpan(start, p.endPos())
			kws = append(kws, kw)
			hasKeyword = true
		} else {
			if _, missing := e.(*MissingExpr); missing {
				p.tokenError([]string{","}, p.tok)
				p.bump()
			} else {
				args = append(args, e)
			}
			if hasKeyword {
				p.errorAt(t.Pos(p.file), "positional argument follows keyword argument")
			}
		}
		if p.tok.Kind == COMMA {
			p.bump()
		}
		if hasNewline {
			p.skipNewlines()
		}
		p.drop(m)
	}
	return args, kws
}

func (p *parser) parseSubscriptExpr(value Expr, start Position) Expr {
	s := &Subscript{Value: value}
	if p.tok.Kind == QUESTION {
		p.bump()
		s.HasQuestion = true
	}
	if p.tok.Kind == LBRACKET {
		p.bump()
	} else {
		p.tokenError([]string{"["}, p.tok)
	}
	var exprs [3]Expr
	isSlice := false
	colons, idx, consecutive := 0, 0, 0
	for round := 0; round <= 4; round++ {
		if p.tok.Kind == COLON {
			p.bump()
			isSlice = true
			colons++
			idx++
			if colons > 2 {
				p.tokenError([]string{"expression", "]"}, p.tok)
			}
			consecutive--
			continue
		}
		if p.tok.Kind == RBRACKET {
			break
		}
		if !isSlice && round == 1 {
			p.errorAt(p.tok.Pos(p.file), "a list should have only one expr")
		}
		e := p.parseExpr()
		if idx < 3 {
			exprs[idx] = e
		}
		consecutive++
		if consecutive > 1 {
			p.errorAt(p.tok.Pos(p.file), "consecutive exprs found")
		}
	}
	if p.tok.Kind == RBRACKET {
		p.bump()
	} else {
		p.tokenError([]string{"]"}, p.tok)
	}
	if isSlice {
		s.Lower, s.Upper, s.Step = exprs[0], exprs[1], exprs[2]
	} else {
		if exprs[0] == nil {
			p.errorAt(p.tok.Pos(p.file), "expected expression got "+tokenString(p.tok))
		}
		if exprs[1] != nil || exprs[2] != nil {
			p.errorAt(p.tok.Pos(p.file), "a list should have only one expr")
		}
		s.Index = exprs[0]
	}
	s.SetSpan(start, p.endPos())
	return s
}

func (p *parser) parseOperandExpr() Expr {
	start := p.startPos()
	switch p.tok.Kind {
	case IDENT:
		switch p.tok.Keyword() {
		case "None":
			return p.parseConstant(None)
		case "Undefined":
			return p.parseConstant(Undefined)
		case "True":
			return p.parseConstant(True)
		case "False":
			return p.parseConstant(False)
		case "lambda":
			return p.parseLambdaExpr()
		case "any", "all", "map", "filter":
			return p.parseQuantExpr()
		}
		var operand Expr = p.parseIdentifierExpr()
		switch p.tok.Kind {
		case LBRACE:
			operand = p.parseSchemaExpr(operand, start)
		case LPAREN:
			call := p.parseCall(operand)
			if p.tok.Kind == LBRACE {
				operand = p.parseSchemaExprWithArgs(call, start)
			} else {
				call.SetSpan(start, p.endPos())
				return call
			}
		}
		return operand
	case INT, FLOAT:
		return p.parseNumExpr()
	case STRING:
		return p.parseStrExpr()
	case LPAREN:
		return p.parseParenExpr()
	case LBRACKET:
		return p.parseListExpr(true)
	case LBRACE:
		return p.parseConfigExpr()
	}
	p.tokenError([]string{"identifier", "literal", "(", "[", "{"}, p.tok)
	return p.missingExpr()
}

func (p *parser) parseConstant(c NameConstant) Expr {
	e := &NameConstantLit{Value: c}
	e.SetSpan(p.startPos(), p.tok.EndPos(p.file))
	p.bump()
	return e
}

func (p *parser) missingExpr() Expr {
	e := &MissingExpr{}
	e.SetSpan(p.tok.Pos(p.file), p.tok.EndPos(p.file))
	return e
}

// identWithName holds an identifier with room for its first name, so that
// parseIdentifier allocates once for the usual one-name identifier.
type identWithName struct {
	id    Identifier
	names [1]*Name
	name  Name
}

// parseIdentifier parses a dotted name `a.b.c`; names keep no `$` prefix.
func (p *parser) parseIdentifier() *Identifier {
	start := p.startPos()
	if p.tok.Kind == IDENT && p.peek().Kind != DOT {
		a := &identWithName{}
		a.name.Value = p.tok.Value
		a.name.SetSpan(p.tok.Pos(p.file), p.tok.EndPos(p.file))
		a.names[0] = &a.name
		a.id.Names = a.names[:]
		p.bump()
		a.id.SetSpan(start, p.endPos())
		return &a.id
	}
	id := &Identifier{}
	if p.tok.Kind != IDENT {
		p.tokenError([]string{"identifier"}, p.tok)
		at := p.tok.Pos(p.file)
		n := &Name{}
		n.SetSpan(at, at)
		id.Names = []*Name{n}
		id.SetSpan(at, at)
		return id
	}
	id.Names = append(id.Names, p.nameFromTok())
	p.bump()
	for p.tok.Kind == DOT {
		p.bump()
		if p.tok.Kind == IDENT {
			id.Names = append(id.Names, p.nameFromTok())
			p.bump()
		} else {
			p.tokenError([]string{"identifier"}, p.tok)
			at := p.tok.Pos(p.file)
			n := &Name{}
			n.SetSpan(at, at)
			id.Names = append(id.Names, n)
		}
	}
	id.SetSpan(start, p.endPos())
	return id
}

func (p *parser) nameFromTok() *Name {
	n := &Name{Value: p.tok.Value}
	n.SetSpan(p.tok.Pos(p.file), p.tok.EndPos(p.file))
	return n
}

func (p *parser) parseIdentifierExpr() *Identifier { return p.parseIdentifier() }

func (p *parser) exprAsIdentifier(e Expr, t *Token) *Identifier {
	if id, ok := e.(*Identifier); ok {
		return id
	}
	p.errorAt(t.Pos(p.file), "expected identifier")
	id := &Identifier{}
	id.SetSpan(e.Pos(), e.End())
	return id
}

// exprName is the official engine's name of an expression kind in messages.
func exprName(e Expr) string {
	switch e.(type) {
	case *Target:
		return "TargetExpression"
	case *Identifier:
		return "IdentifierExpression"
	case *UnaryExpr:
		return "UnaryExpression"
	case *BinaryExpr:
		return "BinaryExpression"
	case *IfExpr:
		return "IfExpression"
	case *SelectorExpr:
		return "SelectorExpression"
	case *CallExpr:
		return "CallExpression"
	case *ParenExpr:
		return "ParenExpression"
	case *QuantExpr:
		return "QuantExpression"
	case *ListExpr:
		return "ListExpression"
	case *ListIfItemExpr:
		return "ListIfItemExpression"
	case *ListComp:
		return "ListCompExpression"
	case *StarredExpr:
		return "StarredExpression"
	case *DictComp:
		return "DictCompExpression"
	case *ConfigIfEntryExpr:
		return "ConfigIfEntryExpression"
	case *CompClause:
		return "CompClauseExpression"
	case *SchemaExpr:
		return "SchemaExpression"
	case *ConfigExpr:
		return "ConfigExpression"
	case *CheckExpr:
		return "CheckExpression"
	case *LambdaExpr:
		return "LambdaExpression"
	case *Subscript:
		return "SubscriptExpression"
	case *Keyword:
		return "KeywordExpression"
	case *Arguments:
		return "ArgumentsExpression"
	case *Compare:
		return "CompareExpression"
	case *NumberLit:
		return "NumberLitExpression"
	case *StringLit:
		return "StringLitExpression"
	case *NameConstantLit:
		return "NameConstantLitExpression"
	case *JoinedString:
		return "JoinedStringExpression"
	case *FormattedValue:
		return "FormattedValueExpression"
	}
	return "MissingExpression"
}

// exprAsAssignTarget converts `a.b[0].c` into a Target; the error text is
// empty on success.
func (p *parser) exprAsAssignTarget(e Expr) (*Target, string) {
	paths, err := p.assignTargetPaths(e)
	if err != "" {
		return nil, err
	}
	if len(paths) == 0 || paths[0].Member == nil {
		return nil, "'" + exprName(e) + "' is an illegal expression for assignment"
	}
	t := &Target{Name: paths[0].Member, Paths: paths[1:]}
	t.SetSpan(e.Pos(), e.End())
	return t, ""
}

func (p *parser) assignTargetPaths(e Expr) ([]MemberOrIndex, string) {
	switch x := e.(type) {
	case *Identifier:
		var paths []MemberOrIndex
		for _, n := range x.Names {
			paths = append(paths, MemberOrIndex{Member: n})
		}
		return paths, ""
	case *SelectorExpr:
		if x.HasQuestion {
			return nil, "'" + exprName(e) + "' is an illegal expression for assignment, because the left-hand side of an assignment expression may not be an optional attribute access."
		}
		paths, err := p.assignTargetPaths(x.Value)
		if err != "" {
			return nil, err
		}
		for _, n := range x.Attr.Names {
			paths = append(paths, MemberOrIndex{Member: n})
		}
		return paths, ""
	case *Subscript:
		if x.HasQuestion {
			return nil, "'" + exprName(e) + "' is an illegal expression for assignment, because the left-hand side of an assignment expression may not be an optional subscript access."
		}
		paths, err := p.assignTargetPaths(x.Value)
		if err != "" {
			return nil, err
		}
		if x.Index == nil {
			return nil, "'" + exprName(e) + "' is an illegal expression for assignment, because the left-hand side of an assignment expression may not be a slice access."
		}
		return append(paths, MemberOrIndex{Index: x.Index}), ""
	}
	return nil, "'" + exprName(e) + "' is an illegal expression for assignment"
}

func (p *parser) parseParenExpr() Expr {
	start := p.startPos()
	p.bump()
	e := &ParenExpr{Expr: p.parseExpr()}
	if p.tok.Kind == RPAREN {
		p.bump()
	} else {
		p.tokenError([]string{")"}, p.tok)
	}
	e.SetSpan(start, p.endPos())
	return e
}

// parseNumExpr converts an INT or FLOAT token like the official engine: ints
// must fit in 64 bits (larger values that fit in an unsigned 64-bit word wrap).
func (p *parser) parseNumExpr() Expr {
	t := p.tok
	n := &NumberLit{Raw: t.Text}
	if t.Kind == FLOAT {
		f, err := strconv.ParseFloat(strings.ReplaceAll(t.Value, "_", ""), 64)
		if err != nil && !isRangeErr(err) {
			p.tokenError([]string{"float"}, t)
		}
		n.IsFloat, n.Float = true, f
	} else {
		v, ok := parseIntLiteral(t.Value)
		if !ok {
			p.tokenError([]string{"int"}, t)
		}
		n.Int = v
		if IsNumberSuffix(t.Suffix) {
			n.BinarySuffix = t.Suffix
		}
	}
	p.bump()
	n.SetSpan(t.Pos(p.file), t.EndPos(p.file))
	return n
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// parseIntLiteral follows the official bytes_to_int: 0x/0o/0b prefixes, a
// leading 0 means octal, single underscores between digits.
func parseIntLiteral(lit string) (int64, bool) {
	if lit == "" {
		return 0, false
	}
	base := 10
	s := lit
	if s[0] == '0' {
		if len(s) == 1 {
			return 0, true
		}
		switch s[1] {
		case 'x', 'X':
			base, s = 16, s[2:]
		case 'b', 'B':
			base, s = 2, s[2:]
		case 'o', 'O':
			base, s = 8, s[2:]
		default:
			base, s = 8, s[1:]
		}
		s = strings.TrimPrefix(s, "_")
	}
	if s == "" {
		return 0, true
	}
	if strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return 0, false
	}
	s = strings.ReplaceAll(s, "_", "")
	if v, err := strconv.ParseUint(s, base, 64); err == nil {
		// The common case, without a big.Int; the rest decides the errors.
		return int64(v), true
	}
	v, ok := new(big.Int).SetString(s, base)
	if !ok {
		return 0, false
	}
	if v.BitLen() > 64 {
		return 0, false
	}
	if v.Sign() == 0 {
		return 0, true
	}
	return int64(v.Uint64()), true
}

func (p *parser) parseStrExpr() Expr {
	t := p.tok
	p.bump()
	lit := &StringLit{IsLongString: t.Long, RawValue: t.Text, Value: t.Value}
	lit.SetSpan(t.Pos(p.file), t.EndPos(p.file))
	if js := p.parseJoinedString(lit, t); js != nil {
		js.SetSpan(t.Pos(p.file), t.EndPos(p.file))
		return js
	}
	return lit
}

func (p *parser) parseListExpr(bumpBracket bool) Expr {
	var start Position
	if bumpBracket {
		start = p.startPos()
		p.bump()
	} else {
		start = p.prev.Pos(p.file)
	}
	empty := func() Expr {
		l := &ListExpr{}
		l.SetSpan(start, p.endPos())
		return l
	}
	if p.tok.Kind == RBRACKET {
		p.bump()
		return empty()
	}
	hasNewline := false
	if p.tok.Kind == NEWLINE {
		p.skipNewlines()
		p.cleanAllIndentations()
		if p.tok.Kind == RBRACKET {
			p.bump()
			return empty()
		}
		hasNewline = true
	}
	itemTok := p.tok
	items := p.parseListItems(hasNewline)
	gens := p.parseCompClauses()
	p.skipNewlines()
	p.cleanAllIndentations()
	if p.tok.Kind == RBRACKET {
		p.bump()
	} else {
		p.tokenError([]string{"]"}, p.tok)
	}
	if len(gens) > 0 {
		if len(items) > 1 {
			p.errorAt(itemTok.Pos(p.file), "multiple list comp clause expression found: expected 1, got "+strconv.Itoa(len(items)))
		}
		if len(items) >= 1 {
			c := &ListComp{Elt: items[0], Generators: gens}
			c.SetSpan(start, p.endPos())
			return c
		}
		p.errorAt(itemTok.Pos(p.file), "missing list comp clause expression")
	}
	l := &ListExpr{Elts: items}
	l.SetSpan(start, p.endPos())
	return l
}

// parseListItems reads the items up to the closing bracket; a list whose first
// item is on the bracket's line ends at a line break, as the official parser's.
func (p *parser) parseListItems(hasNewline bool) []Expr {
	term := func() bool {
		return p.tok.Kind == RBRACKET || p.tok.Kind == EOF || (p.tok.Kind == NEWLINE && !hasNewline) || p.isKw("for")
	}
	if term() {
		return nil
	}
	items := []Expr{p.parseListItem()}
	if p.tok.Kind == COMMA {
		p.bump()
	}
	if hasNewline {
		p.skipNewlines()
	}
	for {
		m := p.mark()
		p.cleanAllIndentations()
		if term() {
			break
		}
		item := p.parseListItem()
		if _, missing := item.(*MissingExpr); missing {
			p.tokenError([]string{","}, p.tok)
			p.bump()
		} else {
			items = append(items, item)
		}
		if p.tok.Kind == COMMA {
			p.bump()
		}
		if hasNewline {
			p.skipNewlines()
		}
		p.drop(m)
	}
	return items
}

func (p *parser) parseListItem() Expr {
	if p.tok.Kind == STAR {
		start := p.startPos()
		p.bump()
		s := &StarredExpr{Value: p.parseExpr()}
		s.SetSpan(start, p.endPos())
		return s
	}
	if p.isKw("if") {
		return p.parseIfItemExpr()
	}
	return p.parseExpr()
}

func (p *parser) parseIfItemExpr() Expr {
	start := p.startPos()
	p.bumpKeyword("if")
	item := &ListIfItemExpr{IfCond: p.parseExpr()}
	p.bumpToken(COLON)
	needSkip := p.tok.Kind == NEWLINE
	item.Exprs = p.parseIfItemExecBlock(needSkip)
	p.skipNewlines()
	var elifs []*ListIfItemExpr
	for p.isKw("elif") {
		m := p.mark()
		es := p.startPos()
		p.bump()
		e := &ListIfItemExpr{IfCond: p.parseExpr()}
		p.bumpToken(COLON)
		if p.tok.Kind == NEWLINE {
			needSkip = true
		}
		e.Exprs = p.parseIfItemExecBlock(needSkip)
		e.SetSpan(es, p.endPos())
		elifs = append(elifs, e)
		p.drop(m)
	}
	p.skipNewlines()
	if p.isKw("else") {
		es := p.startPos()
		p.bump()
		p.bumpToken(COLON)
		if p.tok.Kind == NEWLINE {
			needSkip = true
		}
		body := p.parseIfItemExecBlock(needSkip)
		l := &ListExpr{Elts: body}
		l.SetSpan(es, p.endPos())
		item.Orelse = l
	}
	for i := len(elifs) - 1; i >= 0; i-- {
		elifs[i].Orelse = item.Orelse
		item.Orelse = elifs[i]
	}
	item.SetSpan(start, p.endPos())
	return item
}

func (p *parser) parseIfItemExecBlock(needSkip bool) []Expr {
	if !needSkip {
		return []Expr{p.parseListItem()}
	}
	p.skipNewlines()
	p.bumpToken(INDENT)
	var body []Expr
	for {
		m := p.mark()
		p.validateDedent()
		if p.isDedent() {
			break
		}
		if p.tok.Kind == EOF {
			break
		}
		body = append(body, p.parseListItem())
		if p.tok.Kind == COMMA {
			p.bump()
		}
		p.skipNewlines()
		p.drop(m)
	}
	p.validateDedent()
	p.bumpToken(DEDENT)
	return body
}

func (p *parser) parseConfigExpr() Expr {
	start := p.startPos()
	p.bump()
	empty := func() Expr {
		c := &ConfigExpr{}
		c.SetSpan(start, p.endPos())
		return c
	}
	if p.tok.Kind == RBRACE {
		p.bump()
		return empty()
	}
	hasNewline := false
	if p.tok.Kind == NEWLINE {
		p.skipNewlines()
		p.cleanAllIndentations()
		if p.tok.Kind == RBRACE {
			p.bump()
			return empty()
		}
		hasNewline = true
	}
	itemTok := p.tok
	items := p.parseConfigEntries(hasNewline)
	gens := p.parseCompClauses()
	p.skipNewlines()
	p.cleanAllIndentations()
	if p.tok.Kind == RBRACE {
		p.bump()
	} else {
		p.tokenError([]string{"}"}, p.tok)
	}
	if len(gens) > 0 {
		if len(items) > 1 {
			p.errorAt(itemTok.Pos(p.file), "multiple config comp clause expression found: expected 1, got "+strconv.Itoa(len(items)))
		}
		if len(items) >= 1 {
			c := &DictComp{Entry: items[0], Generators: gens}
			c.SetSpan(start, p.endPos())
			return c
		}
		p.errorAt(itemTok.Pos(p.file), "missing config comp clause expression")
	}
	c := &ConfigExpr{Items: items}
	c.SetSpan(start, p.endPos())
	return c
}

func (p *parser) parseConfigEntries(hasNewline bool) []*ConfigEntry {
	term := func() bool {
		return p.tok.Kind == RBRACE || p.tok.Kind == EOF || (p.tok.Kind == NEWLINE && !hasNewline) || p.isKw("for")
	}
	if term() {
		return nil
	}
	entries := []*ConfigEntry{p.parseConfigEntry()}
	if p.tok.Kind == COMMA {
		p.bump()
	}
	if hasNewline {
		p.skipNewlines()
	}
	for {
		m := p.mark()
		p.cleanAllIndentations()
		if term() {
			break
		}
		entries = append(entries, p.parseConfigEntry())
		if p.tok.Kind == COMMA {
			p.bump()
		}
		if hasNewline {
			p.skipNewlines()
		}
		p.drop(m)
	}
	return entries
}

func (p *parser) configOp() ConfigEntryOperation {
	switch p.tok.Kind {
	case COLON:
		return OpUnion
	case EQ:
		return OpOverride
	case PLUSEQ:
		return OpInsert
	}
	p.tokenError([]string{":", "=", "+="}, p.tok)
	return OpOverride
}

func (p *parser) parseConfigEntry() *ConfigEntry {
	start := p.startPos()
	e := &ConfigEntry{}
	switch {
	case p.tok.Kind == STARSTAR:
		p.bump()
		e.Value = p.parseExpr()
	case p.isKw("if"):
		e.Value = p.parseIfEntryExpr()
	default:
		e.Key = p.parseExpr()
		e.Operation = p.configOp()
		p.bump()
		e.Value = p.parseExpr()
	}
	e.SetSpan(start, p.endPos())
	return e
}

func (p *parser) parseCompClauses() []*CompClause {
	var clauses []*CompClause
	for p.isKw("for") {
		clauses = append(clauses, p.parseCompClause())
	}
	return clauses
}

func (p *parser) parseCompClause() *CompClause {
	start := p.startPos()
	p.bump()
	c := &CompClause{Targets: []*Identifier{p.parseIdentifier()}}
	for p.tok.Kind == COMMA {
		p.bump()
		c.Targets = append(c.Targets, p.parseIdentifier())
	}
	if p.tok.Kind == COMMA {
		p.bump()
	}
	if !p.isKw("in") {
		p.tokenError([]string{"in"}, p.tok)
	}
	p.bump()
	c.Iter = p.parseSimpleExpr()
	p.skipNewlines()
	for p.isKw("if") {
		p.bump()
		c.Ifs = append(c.Ifs, p.parseExpr())
	}
	c.SetSpan(start, p.endPos())
	return c
}

func (p *parser) parseIfEntryExpr() Expr {
	start := p.startPos()
	p.bumpKeyword("if")
	cond := p.parseExpr()
	p.bumpToken(COLON)
	needSkip := p.tok.Kind == NEWLINE
	entry := p.parseIfEntryExecBlock(needSkip)
	entry.IfCond = cond
	p.skipNewlines()
	needSkip = false
	var elifs []*ConfigIfEntryExpr
	last := p.tok
	for p.isKw("elif") {
		m := p.mark()
		es := p.startPos()
		p.bump()
		c := p.parseExpr()
		p.bumpToken(COLON)
		if p.tok.Kind == NEWLINE {
			needSkip = true
		}
		body := p.parseIfEntryExecBlock(needSkip)
		x := &ConfigIfEntryExpr{IfCond: c, Items: body.Items}
		x.SetSpan(es, p.endPos())
		elifs = append(elifs, x)
		last = p.prev
		p.drop(m)
	}
	p.skipNewlines()
	needSkip = false
	if p.isKw("else") {
		es := p.startPos()
		p.bump()
		p.bumpToken(COLON)
		if p.tok.Kind == NEWLINE {
			needSkip = true
		}
		body := p.parseIfEntryExecBlock(needSkip)
		orelse := &ConfigExpr{Items: body.Items}
		orelse.SetSpan(es, p.endPos())
		last = p.prev
		entry.Orelse = orelse
	}
	if p.tok.Kind == COMMA {
		p.bump()
	}
	p.skipNewlines()
	for i := len(elifs) - 1; i >= 0; i-- {
		elifs[i].Orelse = entry.Orelse
		entry.Orelse = elifs[i]
	}
	entry.SetSpan(start, last.EndPos(p.file))
	return entry
}

func (p *parser) parseIfEntryExecBlock(needSkip bool) *ConfigIfEntryExpr {
	if needSkip {
		p.skipNewlines()
		p.bumpToken(INDENT)
	}
	start := p.startPos()
	body := &ConfigIfEntryExpr{}
	if !needSkip {
		p.parseIfEntryBodyItem(body, false)
	} else {
		for p.parseIfEntryBodyItem(body, true) {
			if p.tok.Kind == EOF {
				p.bump()
				break
			}
			if p.tok.Kind == COMMA {
				p.bump()
			}
			p.skipNewlines()
		}
		p.skipNewlines()
	}
	body.SetSpan(start, p.endPos())
	return body
}

func (p *parser) parseIfEntryBodyItem(body *ConfigIfEntryExpr, needSkip bool) bool {
	m := p.mark()
	if needSkip {
		if p.isDedent() {
			p.bump()
			return false
		}
	} else if p.tok.Kind == NEWLINE {
		return false
	}
	if p.isKw("elif") || p.isKw("else") {
		return false
	}
	if p.isKw("if") {
		v := p.parseIfEntryExpr()
		e := &ConfigEntry{Value: v, Operation: OpOverride}
		e.SetSpan(v.Pos(), v.End())
		body.Items = append(body.Items, e)
		return true
	}
	p.validateDedent()
	if p.isDedent() || p.tok.Kind == NEWLINE {
		return false
	}
	if p.tok.Kind == STARSTAR {
		p.bump()
		v := p.parsePrimaryExpr()
		e := &ConfigEntry{Value: v, Operation: OpOverride}
		e.SetSpan(v.Pos(), v.End())
		body.Items = append(body.Items, e)
		return true
	}
	key := p.parseExpr()
	op := p.configOp()
	if p.tok.Kind == COLON || p.tok.Kind == EQ || p.tok.Kind == PLUSEQ {
		p.bump()
	}
	v := p.parseExpr()
	e := &ConfigEntry{Key: key, Value: v, Operation: op}
	e.SetSpan(key.Pos(), v.End())
	body.Items = append(body.Items, e)
	p.drop(m)
	return true
}

func (p *parser) parseSchemaExpr(name Expr, start Position) Expr {
	id, ok := name.(*Identifier)
	if !ok {
		p.tokenError([]string{"identifier"}, p.tok)
		id = &Identifier{}
		id.SetSpan(name.Pos(), name.End())
	}
	s := &SchemaExpr{Name: id, Config: p.parseConfigExpr()}
	s.SetSpan(start, p.endPos())
	return s
}

func (p *parser) parseSchemaExprWithArgs(call *CallExpr, start Position) Expr {
	id, ok := call.Func.(*Identifier)
	if !ok {
		p.tokenError([]string{"identifier"}, p.tok)
		id = &Identifier{}
		id.SetSpan(call.Func.Pos(), call.Func.End())
	}
	s := &SchemaExpr{Name: id, Args: call.Args, Kwargs: call.Keywords, Config: p.parseConfigExpr()}
	s.SetSpan(start, p.endPos())
	return s
}

func (p *parser) parseQuantExpr() Expr {
	start := p.startPos()
	q := &QuantExpr{}
	switch p.tok.Keyword() {
	case "all":
		q.Op = QuantAll
	case "any":
		q.Op = QuantAny
	case "filter":
		q.Op = QuantFilter
	case "map":
		q.Op = QuantMap
	}
	p.bump()
	q.Variables = []*Identifier{p.parseIdentifier()}
	if p.tok.Kind == COMMA {
		p.bump()
		q.Variables = append(q.Variables, p.parseIdentifier())
	}
	if p.isKw("in") {
		p.bump()
	} else {
		p.tokenError([]string{"in"}, p.tok)
	}
	q.Target = p.parseQuantTargetExpr()
	if p.tok.Kind == LBRACE {
		p.bump()
	} else {
		p.tokenError([]string{"{"}, p.tok)
	}
	hasNewline := false
	if p.tok.Kind == NEWLINE {
		p.skipNewlines()
		if p.isIndent() {
			p.bump()
		} else {
			p.tokenError([]string{"indent"}, p.tok)
		}
		hasNewline = true
	}
	q.Test = p.parseSimpleExpr()
	if p.isKw("if") {
		p.bump()
		q.IfCond = p.parseExpr()
	}
	if hasNewline {
		if p.tok.Kind == NEWLINE {
			p.skipNewlines()
		} else {
			p.tokenError([]string{"newline"}, p.tok)
		}
		p.validateDedent()
		if p.isDedent() {
			p.bump()
		} else {
			p.tokenError([]string{"dedent"}, p.tok)
		}
	}
	if p.tok.Kind == RBRACE {
		p.bump()
	} else {
		p.tokenError([]string{"}"}, p.tok)
	}
	q.SetSpan(start, p.endPos())
	return q
}

func (p *parser) parseQuantTargetExpr() Expr {
	start := p.startPos()
	switch p.tok.Kind {
	case IDENT:
		switch p.tok.Keyword() {
		case "None", "Undefined", "lambda", "any", "all", "map", "filter":
			p.tokenError([]string{"None", "Undefined", "lambda", "any", "all", "map", "filter"}, p.tok)
			return p.missingExpr()
		}
		// 0.12.1 takes a dotted name here, no subscript, call or `?.`
		// (newer parsers take those suffixes too).
		var operand Expr = p.parseIdentifier()
		for p.tok.Kind == DOT {
			operand = p.parseSelectorExpr(operand, start)
		}
		return operand
	case STRING:
		return p.parseStrExpr()
	case INT, FLOAT:
		p.tokenError([]string{"str"}, p.tok)
		return p.missingExpr()
	case LBRACKET:
		return p.parseListExpr(true)
	case LBRACE:
		return p.parseConfigExpr()
	case LPAREN:
		p.tokenError([]string{"[", "{"}, p.tok)
		return p.missingExpr()
	}
	p.tokenError([]string{"identifier", "literal"}, p.tok)
	return p.missingExpr()
}

func (p *parser) parseLambdaExpr() Expr {
	start := p.startPos()
	p.bumpKeyword("lambda")
	l := &LambdaExpr{}
	if p.tok.Kind != ARROW && p.tok.Kind != LPAREN && p.tok.Kind != LBRACKET && p.tok.Kind != LBRACE {
		l.Args = p.parseParameters(nil, []TokenKind{ARROW, LBRACE}, false, false)
	}
	if p.tok.Kind == ARROW {
		p.bump()
		l.ReturnTy = p.parseTypeAnnotation()
	}
	p.bumpToken(LBRACE)
	hasNewline := false
	if p.tok.Kind == NEWLINE {
		p.skipNewlines()
		p.cleanAllIndentations()
		hasNewline = true
	}
	for {
		m := p.mark()
		p.cleanAllIndentations()
		if p.tok.Kind == RBRACE || p.tok.Kind == EOF {
			break
		}
		if s := p.parseStmt(); s != nil {
			l.Body = append(l.Body, s)
			p.skipNewlines()
		} else {
			p.bump()
		}
		p.drop(m)
	}
	if hasNewline {
		p.cleanAllDedent()
	}
	p.bumpToken(RBRACE)
	l.SetSpan(start, p.endPos())
	return l
}
