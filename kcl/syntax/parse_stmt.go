package syntax

import "strings"

// Statement parsing.

func (p *parser) parseStmt() Stmt {
	p.skipNewlines()
	if p.tok.Kind == EOF {
		return nil
	}
	if s := p.parseCompoundStmt(); s != nil {
		return s
	}
	if s := p.parseSimpleStmt(); s != nil {
		return s
	}
	p.errorAt(p.tok.Pos(p.file), "unexpected token '"+tokenString(p.tok)+"'")
	return nil
}

func (p *parser) parseCompoundStmt() Stmt {
	p.skipNewlines()
	if p.tok.Kind == EOF {
		return nil
	}
	if p.isKw("if") {
		return p.parseIfStmt()
	}
	var decorators []*CallExpr
	if p.tok.Kind == AT {
		decorators = p.parseDecorators()
	}
	if p.isKw("schema") || p.isKw("mixin") || p.isKw("protocol") {
		return p.parseSchemaStmt(decorators)
	}
	if p.isKw("rule") {
		return p.parseRuleStmt(decorators)
	}
	return nil
}

func (p *parser) parseSimpleStmt() Stmt {
	p.skipNewlines()
	switch {
	case p.tok.Kind == EOF:
		return nil
	case p.isKw("import"):
		return p.parseImportStmt()
	case p.isKw("type"):
		return p.parseTypeAliasStmt()
	case p.isKw("assert"):
		return p.parseAssertStmt()
	case p.tok.Kind == TILDE || p.tok.Kind == BANG:
		return p.parseExprStmt()
	}
	switch p.tok.Kind {
	case IDENT, INT, FLOAT, STRING, LPAREN, LBRACKET, LBRACE:
		if s := p.parseExprOrAssignStmt(false); s != nil {
			return s
		}
	}
	return nil
}

// parseBlockStmtList parses an INDENT ... DEDENT block.
func (p *parser) parseBlockStmtList() []Stmt {
	var list []Stmt
	p.validateDedent()
	p.bumpToken(INDENT)
	for {
		if p.tok.Kind == EOF {
			p.bump()
			break
		}
		p.validateDedent()
		if p.isDedent() {
			p.bump()
			break
		}
		if s := p.parseStmt(); s != nil {
			list = append(list, s)
		} else {
			p.bump()
		}
	}
	p.skipNewlines()
	return list
}

func (p *parser) parseExprStmt() Stmt {
	start := p.startPos()
	e := p.parseExpr()
	s := &ExprStmt{Exprs: []Expr{e}}
	s.SetSpan(start, p.endPos())
	p.skipNewlines()
	return s
}

func (p *parser) parseExprOrAssignStmt(inSchema bool) Stmt {
	start := p.startPos()
	startTok := p.tok
	targets := []Expr{p.parseExpr()}
	// Where an invalid target is reported: the official parser uses the span
	// from the expression's first token to the last token consumed, which is
	// reversed (and so starts at the previous token's end) when nothing was.
	var posBuf [2]Position // room for `target = value` without allocating
	targetPos := append(posBuf[:0], spanStart(start, p.endPos()))
	var value Expr
	var ty Type
	hasType := false
	if p.tok.Kind == COLON {
		p.bump()
		typ := p.parseTypeAnnotation()
		hasType = true
		if nt, ok := typ.(*NamedType); ok && (p.tok.Kind == LBRACE || p.tok.Kind == LPAREN) {
			var se Expr
			if p.tok.Kind == LPAREN {
				call := p.parseCall(nt.Identifier)
				se = p.parseSchemaExprWithArgs(call, start)
			} else {
				se = p.parseSchemaExpr(nt.Identifier, start)
			}
			ident := p.exprAsIdentifier(targets[0], startTok)
			ident.Ctx = Store
			st := &UnificationStmt{Target: ident, Value: se.(*SchemaExpr)}
			// The official extent includes the line breaks after the statement.
			p.skipNewlines()
			st.SetSpan(start, p.endPos())
			return st
		}
		ty = typ
	} else if op, ok := augOps[p.tok.Kind]; ok {
		p.bump()
		target, err := p.exprAsAssignTarget(targets[0])
		if err != "" {
			p.errorAt(targetPos[0], err)
			p.parseExpr()
			p.skipNewlines()
			return nil
		}
		v := p.parseExpr()
		st := &AugAssignStmt{Target: target, Value: v, Op: op}
		st.SetSpan(start, p.endPos())
		p.skipNewlines()
		return st
	}
	for p.tok.Kind == EQ {
		p.bump()
		exprStart := p.startPos()
		e := p.parseExpr()
		if value != nil {
			targets = append(targets, value)
		}
		targetPos = append(targetPos, spanStart(exprStart, p.endPos()))
		value = e
	}
	if op, ok := augOps[p.tok.Kind]; ok && len(targets) == 1 && hasType && inSchema {
		p.bump()
		v := p.parseExpr()
		if id, ok := targets[0].(*Identifier); ok {
			p.skipNewlines()
			name := &Name{Value: id.Name()}
			name.SetSpan(id.Pos(), id.End())
			st := &SchemaAttr{Name: name, Ty: ty, Op: op, Value: v}
			st.SetSpan(start, p.endPos())
			return st
		}
	}
	end := p.endPos()
	if value != nil {
		st := &AssignStmt{Value: value, Ty: ty}
		for i, t := range targets {
			target, err := p.exprAsAssignTarget(t)
			if err != "" {
				p.errorAt(targetPos[i], err)
				continue
			}
			st.Targets = append(st.Targets, target)
		}
		p.skipNewlines()
		st.SetSpan(start, end)
		return st
	}
	if hasType && inSchema {
		if id, ok := targets[0].(*Identifier); ok {
			p.skipNewlines()
			name := &Name{Value: id.Name()}
			name.SetSpan(id.Pos(), id.End())
			st := &SchemaAttr{Name: name, Ty: ty}
			st.SetSpan(start, end)
			return st
		}
	}
	if !hasType {
		st := &ExprStmt{Exprs: targets}
		st.SetSpan(targets[0].Pos(), targets[len(targets)-1].End())
		p.skipNewlines()
		return st
	}
	miss := p.missingExpr()
	p.skipNewlines()
	p.tokenError([]string{"="}, p.tok)
	if !inSchema {
		st := &AssignStmt{Value: miss, Ty: ty}
		for i, t := range targets {
			target, err := p.exprAsAssignTarget(t)
			if err != "" {
				p.errorAt(targetPos[i], err)
				continue
			}
			st.Targets = append(st.Targets, target)
		}
		st.SetSpan(targets[0].Pos(), targets[len(targets)-1].End())
		return st
	}
	return nil
}

var augOps = map[TokenKind]AugOp{
	PLUSEQ: AugAdd, MINUSEQ: AugSub, STAREQ: AugMul, SLASHEQ: AugDiv, PERCENTEQ: AugMod,
	STARSTAREQ: AugPow, SLASHSLASHEQ: AugFloorDiv, LTLTEQ: AugLShift, GTGTEQ: AugRShift,
	CARETEQ: AugBitXor, AMPEQ: AugBitAnd, PIPEEQ: AugBitOr,
}

func (p *parser) parseAssertStmt() Stmt {
	start := p.startPos()
	p.bumpKeyword("assert")
	st := &AssertStmt{Test: p.parseSimpleExpr()}
	if p.isKw("if") {
		p.bump()
		st.IfCond = p.parseSimpleExpr()
	}
	if p.tok.Kind == COMMA {
		p.bump()
		st.Msg = p.parseExpr()
	}
	st.SetSpan(start, p.endPos())
	p.skipNewlines()
	return st
}

func (p *parser) parseImportStmt() Stmt {
	start := p.startPos()
	p.bumpKeyword("import")
	pathStart := p.startPos()
	var lead strings.Builder
	for p.tok.Kind == DOTDOTDOT {
		lead.WriteString("...")
		p.bump()
	}
	for p.tok.Kind == DOT {
		lead.WriteString(".")
		p.bump()
	}
	dotName := p.parseIdentifier()
	pathEnd := p.endPos()
	st := &ImportStmt{}
	if p.isKw("as") {
		p.bump()
		id := p.parseIdentifier()
		if len(id.Names) == 1 {
			st.AsName = id.Names[0]
		} else {
			p.errorAt(p.tok.Pos(p.file), "Invalid import asname")
		}
	}
	path := lead.String() + dotName.Name()
	st.Path = &Name{Value: path}
	st.Path.SetSpan(pathStart, pathEnd)
	st.RawPath = path
	if st.AsName != nil {
		st.Name = st.AsName.Value
	} else if len(dotName.Names) > 0 {
		st.Name = dotName.Names[len(dotName.Names)-1].Value
	}
	st.SetSpan(start, p.endPos())
	p.skipNewlines()
	return st
}

func (p *parser) parseTypeAliasStmt() Stmt {
	p.bumpKeyword("type")
	nameTok := p.tok
	start := p.startPos()
	e := p.parseExpr()
	name := p.exprAsIdentifier(e, nameTok)
	p.bumpToken(EQ)
	tyStart := p.startPos()
	ty := p.parseTypeAnnotation()
	tyEnd := p.endPos()
	p.skipNewlines()
	tv := &Name{Value: TypeString(ty)}
	tv.SetSpan(tyStart, tyEnd)
	st := &TypeAliasStmt{TypeName: name, TypeValue: tv, Ty: ty}
	st.SetSpan(start, tyEnd)
	return st
}

// parseIfBody parses what follows `if cond:`: one simple statement on the same
// line, or an indented block.
func (p *parser) parseIfBody() []Stmt {
	if p.tok.Kind != NEWLINE {
		if s := p.parseExprOrAssignStmt(false); s != nil {
			return []Stmt{s}
		}
		p.bump()
		return nil
	}
	p.skipNewlines()
	return p.parseBlockStmtList()
}

func (p *parser) parseIfStmt() Stmt {
	start := p.startPos()
	p.bumpKeyword("if")
	ifs := &IfStmt{Cond: p.parseExpr()}
	p.bumpToken(COLON)
	ifs.Body = p.parseIfBody()
	p.skipNewlines()
	var elifs []*IfStmt
	for p.isKw("elif") {
		es := p.startPos()
		p.bump()
		e := &IfStmt{Cond: p.parseExpr()}
		p.bumpToken(COLON)
		e.Body = p.parseIfBody()
		e.SetSpan(es, p.endPos())
		elifs = append(elifs, e)
	}
	p.skipNewlines()
	if p.isKw("else") {
		elseTok := p.tok
		p.bump()
		if p.isKw("if") {
			p.errorAt(elseTok.Pos(p.file), "'else if' here is invalid in KCL, consider using the 'elif' keyword")
			p.bump()
		}
		if p.tok.Kind != COLON {
			p.tokenError([]string{":"}, p.tok)
		}
		p.bump()
		ifs.Orelse = p.parseIfBody()
	}
	for i := len(elifs) - 1; i >= 0; i-- {
		x := elifs[i]
		x.Orelse = ifs.Orelse
		if len(ifs.Orelse) > 0 {
			x.SetSpan(x.Pos(), ifs.Orelse[len(ifs.Orelse)-1].End())
		}
		ifs.Orelse = []Stmt{x}
	}
	ifs.SetSpan(start, p.endPos())
	p.skipNewlines()
	return ifs
}

func (p *parser) parseDecorators() []*CallExpr {
	var decorators []*CallExpr
	for p.tok.Kind == AT {
		p.bump()
		e := p.parseExpr()
		switch x := e.(type) {
		case *Identifier:
			c := &CallExpr{Func: x}
			c.SetSpan(x.Pos(), x.End())
			decorators = append(decorators, c)
		case *CallExpr:
			decorators = append(decorators, x)
		default:
			p.tokenError([]string{"identifier"}, p.tok)
		}
		p.skipNewlines()
	}
	p.skipNewlines()
	return decorators
}

func (p *parser) parseSchemaStmt(decorators []*CallExpr) Stmt {
	start := p.startPos() // the official extent starts at the keyword, after decorators
	st := &SchemaStmt{Decorators: decorators}
	switch {
	case p.isKw("mixin"):
		p.bump()
		st.IsMixin = true
	case p.isKw("protocol"):
		p.bump()
		st.IsProtocol = true
	default:
		p.bumpKeyword("schema")
	}
	id := p.parseIdentifier()
	st.Name = &Name{Value: id.Name()}
	st.Name.SetSpan(id.Pos(), id.End())
	if strings.HasSuffix(st.Name.Value, "Mixin") {
		st.IsMixin = true
	} else if strings.HasSuffix(st.Name.Value, "Protocol") {
		st.IsProtocol = true
	}
	if p.tok.Kind == LBRACKET {
		st.Args = p.parseParameters([]TokenKind{LBRACKET}, []TokenKind{RBRACKET}, true, false)
	}
	if p.tok.Kind == LPAREN {
		p.bump()
		st.ParentName = p.parseIdentifier()
		p.bumpToken(RPAREN)
	}
	if p.isKw("for") {
		p.bump()
		t := p.tok
		st.ForHostName = p.exprAsIdentifier(p.parseExpr(), t)
	}
	p.bumpToken(COLON)
	p.skipNewlines()
	if p.isIndent() {
		p.parseSchemaBody(st)
	}
	st.SetSpan(start, p.endPos())
	return st
}

// parseParameters parses `[a: int, b = 1]` (schema, rule) or lambda parameters.
func (p *parser) parseParameters(open, close []TokenKind, bumpClose, multiline bool) *Arguments {
	start := p.startPos()
	if len(open) > 0 {
		found := false
		for _, k := range open {
			if p.tok.Kind == k {
				p.bump()
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	args := &Arguments{}
	for {
		m := p.mark()
		closed := false
		for _, k := range close {
			if p.tok.Kind == k {
				if bumpClose {
					p.bump()
				}
				closed = true
				break
			}
		}
		if closed {
			break
		}
		if multiline && p.tok.Kind == NEWLINE {
			p.skipNewlines()
			p.cleanAllIndentations()
		}
		if p.tok.Kind == NEWLINE || p.tok.Kind == EOF {
			exp := make([]string, len(close))
			for i, k := range close {
				exp[i] = k.String()
			}
			p.tokenError(exp, p.tok)
			break
		}
		name := p.parseIdentifier()
		var ty Type
		var def Expr
		if p.tok.Kind == COLON {
			p.bump()
			ty = p.parseTypeAnnotation()
		}
		if p.tok.Kind == EQ {
			p.bump()
			def = p.parseExpr()
		}
		args.Args = append(args.Args, name)
		args.TyList = append(args.TyList, ty)
		args.Defaults = append(args.Defaults, def)
		if p.tok.Kind == COMMA {
			p.bump()
		}
		if multiline && p.tok.Kind == NEWLINE {
			p.skipNewlines()
			p.cleanAllIndentations()
		}
		p.drop(m)
	}
	p.skipNewlines()
	args.SetSpan(start, p.endPos())
	return args
}

func (p *parser) parseSchemaBody(st *SchemaStmt) {
	p.validateDedent()
	p.bumpToken(INDENT)
	if p.peek().Kind != COLON {
		st.Doc = p.parseDoc()
	}
	if p.isKw("mixin") {
		st.Mixins = p.parseMixins()
		p.skipNewlines()
	}
	for {
		m := p.mark()
		p.validateDedent()
		if p.isDedent() || p.tok.Kind == EOF || p.isKw("check") {
			break
		}
		if p.isKw("assert") {
			st.Body = append(st.Body, p.parseAssertStmt())
			continue
		}
		if p.isKw("if") {
			st.Body = append(st.Body, p.parseIfStmt())
			continue
		}
		if p.tok.Kind == STRING {
			if p.peek().Kind == COLON {
				st.Body = append(st.Body, p.parseSchemaAttribute())
				continue
			}
		} else if p.tok.Kind == AT {
			st.Body = append(st.Body, p.parseSchemaAttribute())
			continue
		}
		if p.peek().Kind == QUESTION {
			st.Body = append(st.Body, p.parseSchemaAttribute())
			continue
		}
		if p.tok.Kind == LBRACKET {
			t := p.tok
			start := p.startPos()
			sig, list := p.parseSchemaIndexSignatureOrList()
			switch {
			case sig != nil:
				if st.IndexSignature != nil {
					p.errorAt(t.Pos(p.file), "duplicate schema index signature definitions, only one is allowed in the schema")
				}
				sig.SetSpan(start, p.endPos())
				st.IndexSignature = sig
			case list != nil:
				es := &ExprStmt{Exprs: []Expr{list}}
				es.SetSpan(start, p.endPos())
				st.Body = append(st.Body, es)
			default:
				p.errorAt(p.tok.Pos(p.file), "expected a index signature or list expression here, got "+tokenString(p.tok))
			}
			p.skipNewlines()
			continue
		}
		if s := p.parseExprOrAssignStmt(true); s != nil {
			if as, ok := s.(*AssignStmt); ok && len(as.Targets) == 1 && as.Ty != nil {
				name := &Name{Value: as.Targets[0].Name.Value}
				name.SetSpan(as.Targets[0].Pos(), as.Targets[0].End())
				if len(as.Targets[0].Paths) > 0 {
					name.Value = targetName(as.Targets[0])
				}
				attr := &SchemaAttr{Name: name, Ty: as.Ty, Op: AugAssign, Value: as.Value}
				attr.SetSpan(as.Pos(), as.End())
				st.Body = append(st.Body, attr)
				continue
			}
			st.Body = append(st.Body, s)
			if _, ok := s.(*SchemaAttr); ok {
				continue
			}
		} else {
			p.bump()
		}
		p.drop(m)
	}
	st.Checks = p.parseCheckBlock()
	p.validateDedent()
	p.bumpToken(DEDENT)
	p.skipNewlines()
}

func targetName(t *Target) string {
	parts := []string{t.Name.Value}
	for _, m := range t.Paths {
		if m.Member != nil {
			parts = append(parts, m.Member.Value)
		}
	}
	return strings.Join(parts, ".")
}

func (p *parser) parseMixins() []*Identifier {
	p.bumpKeyword("mixin")
	var mixins []*Identifier
	p.bumpToken(LBRACKET)
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
	for {
		m := p.mark()
		p.validateDedent()
		if p.tok.Kind == RBRACKET || p.isDedent() {
			break
		}
		mixins = append(mixins, p.parseIdentifier())
		if p.tok.Kind == COMMA {
			p.bump()
		}
		p.skipNewlines()
		p.drop(m)
	}
	if hasNewline {
		p.validateDedent()
		if p.isDedent() {
			p.bump()
		} else {
			p.tokenError([]string{"dedent"}, p.tok)
		}
	}
	p.bumpToken(RBRACKET)
	return mixins
}

func (p *parser) parseSchemaAttribute() Stmt {
	start := p.startPos()
	attr := &SchemaAttr{}
	if p.tok.Kind == AT {
		attr.Decorators = p.parseDecorators()
		p.skipNewlines()
	}
	if p.tok.Kind == STRING {
		t := p.tok
		p.parseStrExpr()
		attr.Name = &Name{Value: t.Value}
		attr.Name.SetSpan(t.Pos(p.file), t.EndPos(p.file))
	} else {
		id := p.parseIdentifier()
		attr.Name = &Name{Value: id.Name()}
		attr.Name.SetSpan(id.Pos(), id.End())
	}
	if p.tok.Kind == QUESTION {
		p.bump()
		attr.IsOptional = true
	}
	p.bumpToken(COLON)
	attr.Ty = p.parseTypeAnnotation()
	if p.tok.Kind == EQ {
		p.bump()
		attr.Op = AugAssign
	} else if op, ok := augOps[p.tok.Kind]; ok {
		p.bump()
		attr.Op = op
	}
	if attr.Op != AugNone {
		attr.Value = p.parseExpr()
	}
	// Like the official parser, the attribute's extent includes the line breaks
	// after it.
	p.skipNewlines()
	attr.SetSpan(start, p.endPos())
	return attr
}

func (p *parser) parseSchemaIndexSignatureOrList() (*SchemaIndexSignature, Expr) {
	p.bumpToken(LBRACKET)
	next := p.peek()
	next2, _ := p.peekN(2)
	switch {
	case p.tok.Kind == NEWLINE || p.tok.Kind == RBRACKET:
		return nil, p.parseListExpr(false)
	case p.tok.Kind == IDENT && next.Kind != COLON && next2.Kind != COLON:
		return nil, p.parseListExpr(false)
	case p.tok.Kind == DOTDOTDOT && next.Kind == IDENT:
		return p.parseSchemaIndexSignature(), nil
	case p.tok.Kind == IDENT:
		return p.parseSchemaIndexSignature(), nil
	}
	return nil, nil
}

func (p *parser) parseSchemaIndexSignature() *SchemaIndexSignature {
	sig := &SchemaIndexSignature{}
	if p.tok.Kind == DOTDOTDOT {
		p.bump()
		sig.KeyTy = p.parseTypeAnnotation()
		sig.AnyOther = true
	} else {
		t := p.tok
		e := p.parseIdentifierExpr()
		id := p.exprAsIdentifier(e, t)
		if p.tok.Kind == RBRACKET {
			nt := &NamedType{Identifier: id}
			nt.SetSpan(e.Pos(), e.End())
			sig.KeyTy = namedOrBasic(nt)
		} else {
			p.bumpToken(COLON)
			if p.tok.Kind == DOTDOTDOT {
				p.bump()
				sig.AnyOther = true
			}
			sig.KeyName = &Name{Value: id.Name()}
			sig.KeyName.SetSpan(e.Pos(), e.End())
			sig.KeyTy = p.parseTypeAnnotation()
		}
	}
	p.bumpToken(RBRACKET)
	p.bumpToken(COLON)
	sig.ValueTy = p.parseTypeAnnotation()
	if p.tok.Kind == EQ {
		p.bump()
		sig.Value = p.parseExpr()
	}
	p.skipNewlines()
	return sig
}

// namedOrBasic turns `[str]: T` key types parsed as a name into the basic type
// they spell, so that type checks need not special-case it.
func namedOrBasic(nt *NamedType) Type {
	if len(nt.Identifier.Names) == 1 {
		if k, ok := basicTypeKind(nt.Identifier.Names[0].Value); ok {
			b := &BasicType{Kind: k}
			b.SetSpan(nt.Pos(), nt.End())
			return b
		}
		if nt.Identifier.Names[0].Value == "any" {
			a := &AnyType{}
			a.SetSpan(nt.Pos(), nt.End())
			return a
		}
	}
	return nt
}

func (p *parser) parseCheckBlock() []*CheckExpr {
	var checks []*CheckExpr
	if !p.isKw("check") {
		return nil
	}
	p.bump()
	p.bumpToken(COLON)
	p.skipNewlines()
	p.bumpToken(INDENT)
	for !p.isDedent() {
		m := p.mark()
		if p.tok.Kind == EOF {
			p.tokenError([]string{"newline"}, p.tok)
			break
		}
		checks = append(checks, p.parseCheckExpr())
		p.skipNewlines()
		p.drop(m)
	}
	p.validateDedent()
	p.bumpToken(DEDENT)
	return checks
}

func (p *parser) parseCheckExpr() *CheckExpr {
	start := p.startPos()
	c := &CheckExpr{Test: p.parseSimpleExpr()}
	if p.isKw("if") {
		p.bump()
		c.IfCond = p.parseSimpleExpr()
	}
	if p.tok.Kind == COMMA {
		p.bump()
		c.Msg = p.parsePrimaryExpr()
	}
	c.SetSpan(start, p.endPos())
	return c
}

func (p *parser) parseRuleStmt(decorators []*CallExpr) Stmt {
	start := p.startPos()
	p.bumpKeyword("rule")
	st := &RuleStmt{Decorators: decorators}
	id := p.parseIdentifier()
	st.Name = &Name{Value: id.Name()}
	st.Name.SetSpan(id.Pos(), id.End())
	if p.tok.Kind == LBRACKET {
		st.Args = p.parseParameters([]TokenKind{LBRACKET}, []TokenKind{RBRACKET}, true, false)
	}
	if p.tok.Kind == LPAREN {
		p.bump()
		for {
			if p.tok.Kind == RPAREN {
				p.bump()
				break
			}
			if p.tok.Kind == NEWLINE || p.tok.Kind == EOF {
				p.tokenError([]string{")", ","}, p.tok)
				break
			}
			t := p.tok
			st.ParentRules = append(st.ParentRules, p.exprAsIdentifier(p.parseExpr(), t))
			switch p.tok.Kind {
			case COMMA, RPAREN, NEWLINE, EOF:
			default:
				p.tokenError([]string{",", ")"}, p.tok)
				p.bump()
			}
			if p.tok.Kind == COMMA {
				p.bump()
			}
		}
	}
	if p.isKw("for") {
		p.bump()
		t := p.tok
		st.ForHostName = p.exprAsIdentifier(p.parseExpr(), t)
	}
	p.bumpToken(COLON)
	p.skipNewlines()
	p.bumpToken(INDENT)
	st.Doc = p.parseDoc()
	p.validateDedent()
	for !p.isDedent() {
		m := p.mark()
		if p.tok.Kind == EOF {
			p.tokenError([]string{"newline"}, p.tok)
			break
		}
		st.Checks = append(st.Checks, p.parseCheckExpr())
		p.skipNewlines()
		p.drop(m)
	}
	p.validateDedent()
	p.bumpToken(DEDENT)
	st.SetSpan(start, p.endPos())
	return st
}

// spanStart is the start of the span from a to b, which the official parser
// normalizes when b comes before a.
func spanStart(a, b Position) Position {
	if b.Offset < a.Offset {
		return b
	}
	return a
}
