package syntax

import (
	"regexp"
	"strconv"
	"strings"
)

// Print writes a module back as KCL source the way the official engine's
// printer does (`kcl run -O … -d` rewrites an overridden file with it): four
// spaces of indent, one statement a line, comments moved before the first
// node that starts on or after their line, blank lines between statements
// kept as one, a blank line after the imports, a schema and an if, lists and
// configs on one line only when their items are.
func Print(m *Module) []byte {
	p := &printer{comments: m.Comments}
	end := 0
	if m.Doc != nil {
		p.write(m.Doc.Value)
		p.newline()
		end = m.Doc.End().Line
	}
	p.stmtsAfter(m.Body, end)
	for _, c := range p.comments {
		p.writeln(c.Text)
		p.fill()
	}
	return []byte(p.out.String())
}

// OverrideValueFile is the file of the nodes of an -O value handed to
// Print: the official printer writes their lists and configs one item a line.
const OverrideValueFile = "<override value>"

type printer struct {
	out      strings.Builder
	indent   int
	comments []*Comment // still to print, in source order
	lastLine int
}

func (p *printer) write(s string) { p.out.WriteString(s) }

func (p *printer) fill() { p.write(strings.Repeat("    ", p.indent)) }

// writeln ends the line with s and indents the next one.
func (p *printer) writeln(s string) {
	p.write(s)
	p.write("\n")
	p.fill()
}

func (p *printer) newline() { p.writeln("") }

// rawNewline ends the line without indenting the next one.
func (p *printer) rawNewline() { p.write("\n") }

func (p *printer) indentNewline() {
	p.indent++
	p.newline()
}

func (p *printer) dedentNewline() {
	p.indent--
	p.newline()
}

// dedentBeforeElse ends an if entry's items: the line ends before its
// else branch, else the enclosing bracket ends it.
func (p *printer) dedentBeforeElse(hasElse bool) {
	if hasElse {
		p.dedentNewline()
	} else {
		p.indent--
	}
}

// commentsBefore prints the comments on or before line, once per line of
// the source the printer advances to.
func (p *printer) commentsBefore(line int) {
	if line <= p.lastLine {
		return
	}
	p.lastLine = line
	n := 0
	for n < len(p.comments) && p.comments[n].Pos().Line <= line {
		n++
	}
	for i, c := range p.comments[:n] {
		// A blank line between two comments written together is kept.
		if i > 0 && c.Pos().Line > p.comments[i-1].Pos().Line+1 {
			p.newline()
		}
		p.writeln(c.Text)
	}
	p.comments = p.comments[n:]
}

// hasCommentBefore reports a comment still to print on or before line.
func (p *printer) hasCommentBefore(line int) bool {
	return len(p.comments) > 0 && p.comments[0].Pos().Line <= line
}

func (p *printer) stmts(body []Stmt) { p.stmtsAfter(body, 0) }

// stmtsAfter writes body, whose first statement follows the line end (0:
// nothing before it).
func (p *printer) stmtsAfter(body []Stmt, end int) {
	var prev Stmt
	for _, s := range body {
		_, afterImport := prev.(*ImportStmt)
		if _, ok := s.(*ImportStmt); ok {
			afterImport = false
		}
		if prev != nil {
			end = 0
			if prev.End().IsValid() {
				end = prev.End().Line
			}
		}
		// Blank lines between two statements are kept as one; a compound
		// statement ends where the statement after it started (its
		// dedent), so only a gap left by a deleted one follows it.
		if end > 0 && !afterImport {
			// The comments up to the statement's line do not count as
			// blank lines (measured against 0.12.1).
			gap := s.Pos().Line - end - 1
			for _, c := range p.comments {
				if l := c.Pos().Line; l > end && l <= s.Pos().Line {
					gap--
				}
			}
			if gap > 0 {
				p.rawNewline()
			}
		}
		if afterImport {
			p.newline()
		}
		p.stmt(s)
		prev = s
	}
}

func (p *printer) stmt(s Stmt) {
	p.fill()
	line := s.Pos().Line
	if line == 0 {
		line = 1 // a statement an override appended
	}
	p.commentsBefore(line)
	switch s := s.(type) {
	case *ExprStmt:
		for i, x := range s.Exprs {
			if i > 0 {
				p.write(", ")
			}
			p.expr(x)
		}
		p.rawNewline()
	case *UnificationStmt:
		p.write(identText(s.Target) + ": ")
		p.schemaExpr(s.Value)
		p.rawNewline()
	case *TypeAliasStmt:
		p.write("type " + identText(s.TypeName) + " = ")
		if s.TypeValue != nil {
			p.write(s.TypeValue.Value)
		} else {
			p.write(TypeString(s.Ty))
		}
		p.rawNewline()
	case *AssignStmt:
		// `a = b = v` is read as one assignment a target.
		for i, t := range s.Targets {
			if i > 0 {
				p.fill()
			}
			p.target(t)
			if s.Ty != nil {
				p.write(": " + TypeString(s.Ty))
			}
			p.write(" = ")
			p.expr(s.Value)
			p.rawNewline()
		}
	case *AugAssignStmt:
		p.target(s.Target)
		p.write(" " + s.Op.Symbol() + " ")
		p.expr(s.Value)
		p.rawNewline()
	case *AssertStmt:
		p.write("assert ")
		p.expr(s.Test)
		if s.IfCond != nil {
			p.write(" if ")
			p.expr(s.IfCond)
		}
		if s.Msg != nil {
			p.write(", ")
			p.expr(s.Msg)
		}
		p.rawNewline()
	case *IfStmt:
		p.ifStmt(s)
	case *ImportStmt:
		p.write("import " + s.RawPath)
		if s.AsName != nil {
			p.write(" as " + s.AsName.Value)
		}
		p.rawNewline()
	case *SchemaStmt:
		p.schemaStmt(s)
	case *SchemaAttr:
		p.decorators(s.Decorators)
		if n := s.Name; n.Pos().IsValid() && n.End().Offset-n.Pos().Offset == len(n.Value)+2 {
			p.write(strconv.Quote(n.Value)) // written as a string
		} else {
			p.attribute(nameText(n))
		}
		if s.IsOptional {
			p.write("?")
		}
		p.write(": ")
		if s.Ty != nil {
			p.write(TypeString(s.Ty))
		} else {
			p.write("any")
		}
		if s.Value != nil {
			if s.Op != AugNone {
				p.write(" " + s.Op.Symbol() + " ")
			} else {
				p.write(" = ")
			}
			p.expr(s.Value)
		}
		p.rawNewline()
	case *RuleStmt:
		p.ruleStmt(s)
	}
}

func (p *printer) target(t *Target) {
	p.write(nameText(t.Name))
	for _, m := range t.Paths {
		if m.Member != nil {
			p.write("." + m.Member.Value)
		} else {
			p.write("[")
			p.expr(m.Index)
			p.write("]")
		}
	}
}

func (p *printer) ifStmt(s *IfStmt) {
	p.write("if ")
	p.expr(s.Cond)
	p.write(":")
	p.rawNewline()
	p.indent++
	p.stmts(s.Body)
	p.indent--
	if len(s.Orelse) == 0 {
		p.rawNewline()
		return
	}
	// An else whose first statement is an if is printed as an elif, as
	// the official printer does.
	if elif, ok := s.Orelse[0].(*IfStmt); ok {
		p.fill()
		p.write("el")
		p.ifStmt(elif)
		return
	}
	p.fill()
	p.write("else:")
	p.rawNewline()
	p.indent++
	p.stmts(s.Orelse)
	p.indent--
}

func (p *printer) decorators(ds []*CallExpr) {
	for i, d := range ds {
		if i > 0 {
			p.newline()
		}
		p.write("@")
		p.call(d)
	}
	if len(ds) > 0 {
		p.newline()
	}
}

func (p *printer) schemaStmt(s *SchemaStmt) {
	p.decorators(s.Decorators)
	switch {
	case s.IsMixin:
		p.write("mixin ")
	case s.IsProtocol:
		p.write("protocol ")
	default:
		p.write("schema ")
	}
	p.write(nameText(s.Name))
	if s.Args != nil {
		p.write("[")
		p.arguments(s.Args)
		p.write("]")
	}
	if s.ParentName != nil {
		p.write("(" + identText(s.ParentName) + ")")
	}
	if s.ForHostName != nil {
		p.write(" for " + identText(s.ForHostName))
	}
	p.write(":")
	p.rawNewline()
	p.indent++
	if s.Doc != nil {
		p.fill()
		p.write(s.Doc.Value)
		p.rawNewline()
	}
	if len(s.Mixins) > 0 {
		p.fill()
		p.write("mixin [")
		p.indentNewline()
		for i, m := range s.Mixins {
			if i > 0 {
				p.write(",")
				p.newline()
			}
			p.write(identText(m))
		}
		p.indent--
		p.newline()
		p.write("]")
		p.rawNewline()
	}
	if ix := s.IndexSignature; ix != nil {
		p.fill()
		p.write("[")
		if ix.AnyOther {
			p.write("...")
		}
		if ix.KeyName != nil {
			p.write(ix.KeyName.Value + ": ")
		}
		p.write(TypeString(ix.KeyTy) + "]: " + TypeString(ix.ValueTy))
		if ix.Value != nil {
			p.write(" = ")
			p.expr(ix.Value)
		}
		p.rawNewline()
	}
	p.stmts(s.Body)
	p.rawNewline()
	if len(s.Checks) > 0 {
		p.fill()
		p.write("check:")
		p.indentNewline()
		for i, c := range s.Checks {
			if i > 0 {
				p.newline()
			}
			p.checkExpr(c)
		}
		p.rawNewline()
		p.indent--
		p.rawNewline()
	}
	p.indent--
}

func (p *printer) ruleStmt(s *RuleStmt) {
	p.decorators(s.Decorators)
	p.write("rule " + s.Name.Value)
	if s.Args != nil {
		p.write("[")
		p.arguments(s.Args)
		p.write("]")
	}
	if len(s.ParentRules) > 0 {
		p.write("(")
		for i, r := range s.ParentRules {
			if i > 0 {
				p.write(", ")
			}
			p.write(identText(r))
		}
		p.write(")")
	}
	if s.ForHostName != nil {
		p.write(" for " + identText(s.ForHostName))
	}
	p.write(":")
	p.indentNewline()
	if s.Doc != nil {
		p.write(s.Doc.Value)
		p.newline()
	}
	if len(s.Checks) > 0 {
		for i, c := range s.Checks {
			if i > 0 {
				p.newline()
			}
			p.checkExpr(c)
		}
		p.rawNewline()
	}
	p.indent--
}

func (p *printer) checkExpr(c *CheckExpr) {
	p.expr(c.Test)
	if c.IfCond != nil {
		p.write(" if ")
		p.expr(c.IfCond)
	}
	if c.Msg != nil {
		p.write(", ")
		p.expr(c.Msg)
	}
}

func (p *printer) arguments(a *Arguments) {
	for i, name := range a.Args {
		if i > 0 {
			p.write(", ")
		}
		p.write(identText(name))
		if i < len(a.TyList) && a.TyList[i] != nil {
			p.write(": " + TypeString(a.TyList[i]))
		}
		if i < len(a.Defaults) && a.Defaults[i] != nil {
			p.write(" = ")
			p.expr(a.Defaults[i])
		}
	}
}

var identifierRE = regexp.MustCompile(`^\$?[a-zA-Z_]\w*$`)

// attribute writes a schema attribute's name, quoted when it is no identifier.
func (p *printer) attribute(name string) {
	if identifierRE.MatchString(name) {
		p.write(name)
	} else {
		p.write(strconv.Quote(name))
	}
}

func (p *printer) expr(x Expr) {
	if x == nil {
		return
	}
	if x.Pos().IsValid() {
		p.commentsBefore(x.Pos().Line)
	}
	switch x := x.(type) {
	case *Identifier:
		p.write(identText(x))
	case *UnaryExpr:
		p.write(x.Op.Symbol())
		if x.Op == Not {
			p.write(" ")
		}
		p.expr(x.Operand)
	case *BinaryExpr:
		p.expr(x.Left)
		p.write(" " + x.Op.Symbol() + " ")
		p.expr(x.Right)
	case *IfExpr:
		p.expr(x.Body)
		p.write(" if ")
		p.expr(x.Cond)
		p.write(" else ")
		p.expr(x.Orelse)
	case *SelectorExpr:
		p.expr(x.Value)
		if x.HasQuestion {
			p.write("?.")
		} else {
			p.write(".")
		}
		p.write(identText(x.Attr))
	case *CallExpr:
		p.call(x)
	case *ParenExpr:
		p.write("(")
		p.expr(x.Expr)
		p.write(")")
	case *QuantExpr:
		p.write(x.Op.String() + " ")
		for i, v := range x.Variables {
			if i > 0 {
				p.write(", ")
			}
			p.write(identText(v))
		}
		p.write(" in ")
		p.expr(x.Target)
		// The test stays on the line of the quantifier where it was.
		one := x.Test == nil || x.Test.Pos().Line == x.Pos().Line
		p.write(" {")
		if !one {
			p.indentNewline()
		}
		p.expr(x.Test)
		if x.IfCond != nil {
			p.write(" if ")
			p.expr(x.IfCond)
		}
		if !one {
			p.dedentNewline()
		}
		p.write("}")
	case *ListExpr:
		p.list(x)
	case *ListIfItemExpr:
		var orelse ifBranch
		switch o := x.Orelse.(type) {
		case *ListExpr:
			orelse = ifBranch{n: len(o.Elts), item: func(i int) { p.expr(o.Elts[i]) }}
		case *ListIfItemExpr:
			orelse = ifBranch{elif: o}
		}
		p.ifEntry(x.IfCond, ifBranch{n: len(x.Exprs), item: func(i int) { p.expr(x.Exprs[i]) }}, x.Orelse != nil, orelse)
	case *ListComp:
		p.write("[")
		p.expr(x.Elt)
		for _, g := range x.Generators {
			p.compClause(g)
		}
		p.write("]")
	case *StarredExpr:
		p.write("*")
		p.expr(x.Value)
	case *DictComp:
		p.write("{")
		if x.Entry != nil {
			p.expr(x.Entry.Key)
			if x.Entry.Operation != OpUnion {
				p.write(" ")
			}
			p.write(x.Entry.Operation.Symbol() + " ")
			p.expr(x.Entry.Value)
		}
		for _, g := range x.Generators {
			p.compClause(g)
		}
		p.write("}")
	case *ConfigIfEntryExpr:
		var orelse ifBranch
		switch o := x.Orelse.(type) {
		case *ConfigExpr:
			orelse = ifBranch{n: len(o.Items), item: func(i int) { p.entry(o.Items[i]) }}
		case *ConfigIfEntryExpr:
			orelse = ifBranch{elif: o}
		}
		p.ifEntry(x.IfCond, ifBranch{n: len(x.Items), item: func(i int) { p.entry(x.Items[i]) }}, x.Orelse != nil, orelse)
	case *SchemaExpr:
		p.schemaExpr(x)
	case *ConfigExpr:
		p.config(x)
	case *CheckExpr:
		p.checkExpr(x)
	case *LambdaExpr:
		p.write("lambda")
		if x.Args != nil && len(x.Args.Args) > 0 {
			p.write(" ")
			p.arguments(x.Args)
		}
		if x.ReturnTy != nil {
			p.write(" -> " + TypeString(x.ReturnTy))
		}
		p.write(" {")
		p.rawNewline()
		p.indent++
		p.stmts(x.Body)
		p.indent--
		p.fill()
		p.write("}")
	case *Subscript:
		p.expr(x.Value)
		if x.HasQuestion {
			p.write("?")
		}
		p.write("[")
		if x.Index != nil {
			p.expr(x.Index)
		} else {
			p.expr(x.Lower)
			p.write(":")
			p.expr(x.Upper)
			p.write(":")
			p.expr(x.Step)
		}
		p.write("]")
	case *Compare:
		p.expr(x.Left)
		for i, op := range x.Ops {
			p.write(" " + op.Symbol() + " ")
			p.expr(x.Comparators[i])
		}
	case *NumberLit:
		if x.IsFloat {
			p.write(strconv.FormatFloat(x.Float, 'f', -1, 64))
		} else {
			p.write(strconv.FormatInt(x.Int, 10))
		}
		p.write(x.BinarySuffix)
	case *StringLit:
		p.stringLit(x)
	case *NameConstantLit:
		p.write(x.Value.Symbol())
	case *JoinedString:
		if x.RawValue != "" {
			p.write(x.RawValue) // as written, as 0.12.1 prints it
			return
		}
		q := `"`
		if x.IsLongString {
			q = `"""`
		}
		p.write(q)
		for _, v := range x.Values {
			if s, ok := v.(*StringLit); ok {
				p.write(strings.ReplaceAll(s.Value, `"`, `\"`))
			} else {
				p.expr(v)
			}
		}
		p.write(q)
	case *FormattedValue:
		p.write("${")
		p.expr(x.Value)
		if x.FormatSpec != "" {
			p.write(": " + x.FormatSpec)
		}
		p.write("}")
	case *Keyword:
		p.keyword(x)
	}
}

func (p *printer) stringLit(s *StringLit) {
	if s.RawValue != "" {
		p.write(s.RawValue)
		return
	}
	v := strings.ReplaceAll(s.Value, `"`, `\"`)
	if s.IsLongString {
		p.write(`"""` + v + `"""`)
	} else {
		p.write(`"` + v + `"`)
	}
}

// ifBranch is what an if-entry of a list or a config holds: n items printed
// one per line by item, or, for an else branch, the next if-entry (elif).
type ifBranch struct {
	n    int
	item func(int)
	elif Expr
}

// ifEntry prints `if cond:` and its items, then `else:` and its items or
// `el` and the next if-entry: lists and configs share the layout, each
// with its own item printer.
func (p *printer) ifEntry(cond Expr, body ifBranch, hasElse bool, orelse ifBranch) {
	p.write("if ")
	p.expr(cond)
	p.write(":")
	p.indentNewline()
	p.items(body)
	p.dedentBeforeElse(hasElse)
	switch {
	case orelse.elif != nil:
		p.write("el")
		p.expr(orelse.elif)
	case orelse.item != nil:
		p.write("else:")
		p.indentNewline()
		p.items(orelse)
		p.indent--
	}
}

// items prints a branch's items, one per line.
func (p *printer) items(b ifBranch) {
	for i := range b.n {
		if i > 0 {
			p.newline()
		}
		b.item(i)
	}
}

func (p *printer) call(c *CallExpr) {
	p.expr(c.Func)
	p.write("(")
	p.argsAndKwargs(c.Args, c.Keywords)
	p.write(")")
}

func (p *printer) argsAndKwargs(args []Expr, kwargs []*Keyword) {
	for i, a := range args {
		if i > 0 {
			p.write(", ")
		}
		p.expr(a)
	}
	if len(args) > 0 && len(kwargs) > 0 {
		p.write(", ")
	}
	for i, k := range kwargs {
		if i > 0 {
			p.write(", ")
		}
		p.keyword(k)
	}
}

func (p *printer) keyword(k *Keyword) {
	p.write(identText(k.Arg))
	if k.Value != nil {
		p.write("=")
		p.expr(k.Value)
	}
}

func (p *printer) compClause(g *CompClause) {
	p.write(" for ")
	for i, t := range g.Targets {
		if i > 0 {
			p.write(", ")
		}
		p.write(identText(t))
	}
	p.write(" in ")
	p.expr(g.Iter)
	for _, c := range g.Ifs {
		p.write(" if ")
		p.expr(c)
	}
}

func (p *printer) schemaExpr(s *SchemaExpr) {
	p.write(identText(s.Name))
	if len(s.Args) > 0 || len(s.Kwargs) > 0 {
		p.write("(")
		p.argsAndKwargs(s.Args, s.Kwargs)
		p.write(")")
	}
	p.write(" ")
	p.expr(s.Config)
}

// oneLine reports items written on one line in the source, that of the
// bracket at, with no comment among them: the printer keeps those on one line.
func (p *printer) oneLine(at Node, items []Node, lines []int) bool {
	if at.Pos().IsValid() && len(lines) > 0 && lines[0] != at.Pos().Line {
		return false
	}
	for _, n := range items {
		if n.Pos().File == OverrideValueFile {
			return false
		}
		// So is a dotted key an override adds (`-O w.a.b=1` appends
		// `w = {a.b = 1}` on three lines).
		if e, ok := n.(*ConfigEntry); ok && !e.Pos().IsValid() {
			if id, ok := e.Key.(*Identifier); ok && len(id.Names) > 1 {
				return false
			}
		}
	}
	seen := map[int]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	if len(seen) > 1 {
		return false
	}
	return len(lines) == 0 || !p.hasCommentBefore(lines[0])
}

func (p *printer) list(l *ListExpr) {
	lines := make([]int, len(l.Elts))
	items := make([]Node, len(l.Elts))
	for i, e := range l.Elts {
		lines[i], items[i] = e.Pos().Line, e
	}
	one := p.oneLine(l, items, lines)
	if len(l.Elts) > 0 {
		if _, ok := l.Elts[0].(*ListIfItemExpr); ok {
			one = false
		}
	}
	p.enclosed("[", "]", len(l.Elts), one, func(i int) { p.expr(l.Elts[i]) })
}

func (p *printer) config(c *ConfigExpr) {
	if hasDotted(c.Items) {
		items := make([]*ConfigEntry, len(c.Items))
		for i, e := range c.Items {
			items[i] = e
			if id, ok := e.Key.(*Identifier); ok && len(id.Names) > 1 && e.Pos().IsValid() {
				items[i] = nested(e, id)
			}
		}
		c = &ConfigExpr{Span: c.Span, Items: items}
	}
	lines := make([]int, len(c.Items))
	items := make([]Node, len(c.Items))
	for i, e := range c.Items {
		lines[i], items[i] = e.Pos().Line, e
	}
	one := p.oneLine(c, items, lines)
	if len(c.Items) == 1 && one {
		switch c.Items[0].Value.(type) {
		case *ConfigIfEntryExpr, *ConfigExpr, *SchemaExpr:
			one = false
		}
	}
	p.enclosed("{", "}", len(c.Items), one, func(i int) { p.entry(c.Items[i]) })
}

// enclosed prints n items between open and close: on one line separated by
// commas, or one per line, indented. An empty list or config is always one
// line (oneLine), so nothing is indented for no items.
func (p *printer) enclosed(open, close string, n int, one bool, item func(int)) {
	p.write(open)
	if n > 0 && !one {
		p.indentNewline()
	}
	for i := range n {
		if i > 0 {
			if one {
				p.write(", ")
			} else {
				p.newline()
			}
		}
		item(i)
	}
	if n > 0 && !one {
		p.dedentNewline()
	}
	p.write(close)
}

func (p *printer) entry(e *ConfigEntry) {
	if e.Key == nil {
		if _, ok := e.Value.(*ConfigIfEntryExpr); !ok {
			p.write("**")
		}
		p.expr(e.Value)
		return
	}
	if id, ok := e.Key.(*Identifier); ok && len(id.Names) > 1 && e.Pos().IsValid() {
		// A dotted key the parser read (one an override adds stays).
		p.entry(nested(e, id))
		return
	}
	braces := 0
	if id, ok := e.Key.(*Identifier); ok {
		if id.Pos().IsValid() {
			p.commentsBefore(id.Pos().Line)
		}
		plain := true
		for _, n := range id.Names {
			if !identifierRE.MatchString(n.Value) {
				plain = false
			}
		}
		if plain {
			p.expr(id)
		} else {
			for i, n := range id.Names {
				if i > 0 {
					p.write(": {")
				}
				p.write(strconv.Quote(n.Value))
			}
			braces = len(id.Names) - 1
		}
	} else {
		p.expr(e.Key)
	}
	if e.Operation != OpUnion {
		p.write(" ")
	}
	p.write(e.Operation.Symbol() + " ")
	p.expr(e.Value)
	p.write(strings.Repeat("}", braces))
}

// nested is the entry `a.b.c op v` as the official parser reads it:
// `a: {b: {c op v}}`.
func nested(e *ConfigEntry, id *Identifier) *ConfigEntry {
	inner := &ConfigEntry{Span: e.Span, Key: &Identifier{Span: id.Span, Names: id.Names[len(id.Names)-1:]}, Value: e.Value, Operation: e.Operation}
	for i := len(id.Names) - 2; i >= 0; i-- {
		inner = &ConfigEntry{Span: e.Span, Key: &Identifier{Span: id.Span, Names: id.Names[i : i+1]}, Value: &ConfigExpr{Span: e.Span, Items: []*ConfigEntry{inner}}, Operation: OpUnion}
	}
	return inner
}

func hasDotted(items []*ConfigEntry) bool {
	for _, e := range items {
		if id, ok := e.Key.(*Identifier); ok && len(id.Names) > 1 && e.Pos().IsValid() {
			return true
		}
	}
	return false
}

// nameText is a name as written: `$if` keeps its dollar, which the parser
// drops from the value (the token's span has it).
func nameText(n *Name) string {
	if n.Pos().IsValid() && n.End().Offset-n.Pos().Offset == len(n.Value)+1 {
		return "$" + n.Value
	}
	return n.Value
}

// identText is an identifier as written, its names joined by dots.
func identText(id *Identifier) string {
	parts := make([]string, len(id.Names))
	for i, n := range id.Names {
		parts[i] = nameText(n)
	}
	return strings.Join(parts, ".")
}
