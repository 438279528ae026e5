package syntax

import (
	"strconv"
	"strings"
)

// Type annotation parsing.

func (p *parser) parseTypeAnnotation() Type {
	p.enter()
	defer p.leave()
	start := p.startPos()
	elems := []Type{p.parseTypeElement()}
	for p.tok.Kind == PIPE {
		p.bump()
		elems = append(elems, p.parseTypeElement())
	}
	if len(elems) == 1 {
		return elems[0]
	}
	u := &UnionType{TypeElements: elems}
	u.SetSpan(start, p.endPos())
	return u
}

// basicTypeKind returns the basic type a name spells.
func basicTypeKind(name string) (BasicTypeKind, bool) {
	switch name {
	case "bool":
		return TypeBool, true
	case "int":
		return TypeInt, true
	case "float":
		return TypeFloat, true
	case "str":
		return TypeStr, true
	}
	return 0, false
}

func (p *parser) parseTypeElement() Type {
	start := p.startPos()
	finish := func(t interface{ SetSpan(a, b Position) }) {
		t.SetSpan(start, p.endPos())
	}
	switch p.tok.Keyword() {
	case "any":
		p.bump()
		t := &AnyType{}
		finish(t)
		return t
	case "True", "False":
		t := &LiteralType{Kind: LitBool, Bool: p.tok.Text == "True"}
		p.bump()
		finish(t)
		return t
	}
	if p.tok.Kind == IDENT && !p.tok.Escaped {
		if k, ok := basicTypeKind(p.tok.Text); ok {
			p.bump()
			t := &BasicType{Kind: k}
			finish(t)
			return t
		}
	}
	switch p.tok.Kind {
	case IDENT:
		t := &NamedType{Identifier: p.parseIdentifier()}
		finish(t)
		return t
	case INT:
		v, _ := parseIntLiteral(p.tok.Value)
		t := &LiteralType{Kind: LitInt, Int: v}
		if IsNumberSuffix(p.tok.Suffix) {
			t.Suffix = p.tok.Suffix
		}
		p.bump()
		finish(t)
		return t
	case FLOAT:
		v, _ := strconv.ParseFloat(strings.ReplaceAll(p.tok.Value, "_", ""), 64)
		t := &LiteralType{Kind: LitFloat, Float: v}
		p.bump()
		finish(t)
		return t
	case STRING:
		t := &LiteralType{Kind: LitStr, Str: p.tok.Value}
		p.bump()
		finish(t)
		return t
	case LBRACKET:
		p.bump()
		t := &ListType{}
		if p.tok.Kind == RBRACKET {
			p.bump()
		} else {
			t.InnerType = p.parseTypeAnnotation()
			p.bumpToken(RBRACKET)
		}
		finish(t)
		return t
	case LBRACE:
		p.bump()
		t := &DictType{}
		if p.tok.Kind != COLON {
			t.KeyType = p.parseTypeAnnotation()
		}
		p.bumpToken(COLON)
		if p.tok.Kind != RBRACE {
			t.ValueType = p.parseTypeAnnotation()
		}
		p.bumpToken(RBRACE)
		finish(t)
		return t
	case LPAREN:
		p.bump()
		t := &FunctionType{}
		for p.tok.Kind != RPAREN && p.tok.Kind != EOF {
			m := p.mark()
			t.ParamsTy = append(t.ParamsTy, p.parseTypeAnnotation())
			if p.tok.Kind == COMMA {
				p.bump()
			}
			if m == p.idx {
				break
			}
		}
		p.bumpToken(RPAREN)
		if p.tok.Kind == ARROW {
			p.bump()
			t.RetTy = p.parseTypeAnnotation()
		}
		finish(t)
		return t
	}
	p.tokenError([]string{"any", "bool", "int", "float", "str", "True", "False", "identifier", "literal", "[", "{", ")"}, p.tok)
	p.bump()
	t := &AnyType{}
	finish(t)
	return t
}
