package modules

import (
	"strings"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// A Handlebars subset, as template.execute of 0.12.1 (handlebars-rust) offers it:
// {{path}} (HTML-escaped), {{{path}}} and {{&path}} (verbatim), {{#if}}/{{#unless}}/
// {{#each}}/{{#with}} blocks with {{else}}, comments, "~" whitespace control, the
// standalone-line rule for block tags, and raw blocks {{{{raw}}}}…{{{{/raw}}}}.
// raw is handlebars-rust's helper that renders its block: inline ({{raw x}}) it
// has no block and prints nothing. A name with arguments that is no helper fails
// with handlebars-rust's HelperNotFound, as does a block of such a name.

type tplToken struct {
	text      string // literal text, or the tag body
	tag       bool
	triple    bool
	rawBlock  bool // {{{{name}}}} or {{{{/name}}}}: its body is text, its leading whitespace dropped
	line, col int  // where the tag starts (1-based, in characters), for handlebars-rust's errors
	trimLeft  bool
	trimRight bool
}

func tplLex(tmpl string) ([]tplToken, error) {
	var toks []tplToken
	src := tmpl
	for len(src) > 0 {
		i := strings.Index(src, "{{")
		if i < 0 {
			toks = append(toks, tplToken{text: src})
			break
		}
		if i > 0 {
			toks = append(toks, tplToken{text: src[:i]})
		}
		src = src[i:]
		line, col := tplPos(tmpl, len(tmpl)-len(src))
		if strings.HasPrefix(src, "{{{{") {
			j := strings.Index(src, "}}}}")
			if j < 0 {
				return nil, evalErr("render template failed: unclosed tag")
			}
			inner := strings.TrimSpace(src[4:j])
			name, _, _ := strings.Cut(inner, " ")
			end := "{{{{/" + name + "}}}}"
			k := strings.Index(src[j+4:], end)
			if k < 0 {
				return nil, evalErr("render template failed: unclosed block %s", name)
			}
			body := src[j+4 : j+4+k]
			toks = append(toks, tplToken{tag: true, rawBlock: true, text: "#" + inner, line: line, col: col},
				tplToken{text: body},
				tplToken{tag: true, rawBlock: true, text: "/" + name})
			src = src[j+4+k+len(end):]
			continue
		}
		triple := strings.HasPrefix(src, "{{{")
		open, close := "{{", "}}"
		if triple {
			open, close = "{{{", "}}}"
		}
		body := src[len(open):]
		if strings.HasPrefix(body, "!--") {
			close = "--}}"
		}
		j := strings.Index(body, close)
		if j < 0 {
			return nil, evalErr("render template failed: unclosed tag")
		}
		t := tplToken{tag: true, triple: triple, text: body[:j], line: line, col: col}
		src = body[j+len(close):]
		if strings.HasPrefix(t.text, "~") {
			t.trimLeft, t.text = true, t.text[1:]
		}
		if strings.HasSuffix(t.text, "~") {
			t.trimRight, t.text = true, t.text[:len(t.text)-1]
		}
		t.text = strings.TrimSpace(t.text)
		toks = append(toks, t)
	}
	return toks, nil
}

func tplPos(tmpl string, off int) (line, col int) {
	before := tmpl[:off]
	nl := strings.LastIndexByte(before, '\n')
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[nl+1:]) + 1
}

// helperNotFound is handlebars-rust's error for a helper call or block of an unknown name.
func helperNotFound(t *tplToken, name string) error {
	return evalErr("render template failed: RenderError { template_name: Some(\"template\"), line_no: Some(%d), column_no: Some(%d), reason: HelperNotFound(%q), unimplemented: false }", t.line, t.col, name)
}

// tplHelpers are handlebars-rust's built-in helpers; a call of any other name fails.
// Beyond if/unless/each/with/raw/log, this subset prints nothing for them.
var tplHelpers = map[string]bool{"if": true, "unless": true, "each": true, "with": true, "raw": true, "log": true,
	"lookup": true, "len": true, "eq": true, "ne": true, "gt": true, "gte": true, "lt": true, "lte": true,
	"and": true, "or": true, "not": true}

func isStandaloneKind(t tplToken) bool {
	if !t.tag || t.triple {
		return false
	}
	return strings.HasPrefix(t.text, "#") || strings.HasPrefix(t.text, "/") || strings.HasPrefix(t.text, "!") ||
		t.text == "else" || strings.HasPrefix(t.text, "^")
}

// applyWhitespaceRules trims text around "~" tags and standalone block tags.
// Standalone decisions are taken on the original texts, then applied, so two
// block tags sharing one line break between them both see their lines.
func applyWhitespaceRules(toks []tplToken) {
	from := make([]int, len(toks)) // cut text before this offset
	to := make([]int, len(toks))   // cut text from this offset
	for i := range toks {
		to[i] = len(toks[i].text)
	}
	for i, t := range toks {
		if !isStandaloneKind(t) {
			continue
		}
		prevOK, prevCut := true, -1
		if i > 0 {
			if toks[i-1].tag {
				prevOK = false
			} else {
				p := toks[i-1].text
				nl := strings.LastIndexByte(p, '\n')
				if strings.Trim(p[nl+1:], " \t") != "" || (nl < 0 && i-1 > 0) {
					prevOK = false
				}
				prevCut = nl + 1
			}
		}
		nextOK, nextCut := true, 0
		if i+1 < len(toks) {
			if toks[i+1].tag {
				nextOK = false
			} else {
				n := toks[i+1].text
				nl := strings.IndexByte(n, '\n')
				rest := n
				if nl >= 0 {
					rest = n[:nl]
					nextCut = nl + 1
				} else {
					nextCut = len(n)
					if i+2 < len(toks) {
						nextOK = false
					}
				}
				if strings.Trim(strings.TrimSuffix(rest, "\r"), " \t") != "" {
					nextOK = false
				}
			}
		}
		if prevOK && nextOK {
			if prevCut >= 0 {
				to[i-1] = min(to[i-1], prevCut)
			}
			if i+1 < len(toks) {
				from[i+1] = max(from[i+1], nextCut)
			}
		}
	}
	for i := range toks {
		if !toks[i].tag {
			if from[i] >= to[i] {
				toks[i].text = ""
			} else {
				toks[i].text = toks[i].text[from[i]:to[i]]
			}
		}
	}
	for i, t := range toks {
		// handlebars-rust's grammar skips the whitespace after a raw block's opening tag.
		if t.rawBlock && strings.HasPrefix(t.text, "#") && i+1 < len(toks) && !toks[i+1].tag {
			toks[i+1].text = strings.TrimLeft(toks[i+1].text, " \t\r\n")
		}
		if !t.tag {
			continue
		}
		if t.trimLeft && i > 0 && !toks[i-1].tag {
			toks[i-1].text = strings.TrimRight(toks[i-1].text, " \t\r\n")
		}
		if t.trimRight && i+1 < len(toks) && !toks[i+1].tag {
			toks[i+1].text = strings.TrimLeft(toks[i+1].text, " \t\r\n")
		}
	}
}

type tplNode struct {
	text     string
	tag      *tplToken
	block    string    // helper name for blocks
	pos      *tplToken // the block's opening tag
	arg      string
	body     []*tplNode
	inverse  []*tplNode
	isInvert bool
}

func tplParse(toks []tplToken) ([]*tplNode, error) {
	pos := 0
	var parse func(closing string) ([]*tplNode, []*tplNode, error)
	parse = func(closing string) ([]*tplNode, []*tplNode, error) {
		var body, inverse []*tplNode
		cur := &body
		for pos < len(toks) {
			t := toks[pos]
			pos++
			switch {
			case !t.tag:
				*cur = append(*cur, &tplNode{text: t.text})
			case strings.HasPrefix(t.text, "!"):
			case strings.HasPrefix(t.text, "#"):
				name, a, _ := strings.Cut(strings.TrimSpace(t.text[1:]), " ")
				n := &tplNode{block: name, arg: strings.TrimSpace(a), pos: &t}
				b, inv, err := parse(name)
				if err != nil {
					return nil, nil, err
				}
				n.body, n.inverse = b, inv
				*cur = append(*cur, n)
			case strings.HasPrefix(t.text, "/"):
				if strings.TrimSpace(t.text[1:]) != closing {
					return nil, nil, evalErr("render template failed: unexpected closing tag %s", t.text)
				}
				return body, inverse, nil
			case t.text == "else":
				cur = &inverse
			default:
				tt := t
				*cur = append(*cur, &tplNode{tag: &tt})
			}
		}
		if closing != "" {
			return nil, nil, evalErr("render template failed: unclosed block %s", closing)
		}
		return body, inverse, nil
	}
	body, _, err := parse("")
	return body, err
}

type tplScope struct {
	ctx    value.Value
	parent *tplScope
	vars   map[string]value.Value
}

func (s *tplScope) lookup(path string) value.Value {
	path = strings.TrimSpace(path)
	sc := s
	for strings.HasPrefix(path, "../") {
		path = path[3:]
		if sc.parent != nil {
			sc = sc.parent
		}
	}
	if strings.HasPrefix(path, "@") {
		for x := sc; x != nil; x = x.parent {
			if v, ok := x.vars[path]; ok {
				return v
			}
		}
		if path == "@root" {
			for sc.parent != nil {
				sc = sc.parent
			}
			return sc.ctx
		}
		return nil
	}
	cur := sc.ctx
	if path == "this" || path == "." {
		return cur
	}
	path = strings.TrimPrefix(strings.TrimPrefix(path, "this."), "./")
	path = strings.ReplaceAll(path, "/", ".")
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case *value.Dict:
			v, ok := c.Get(part)
			if !ok {
				return nil
			}
			cur = v
		case *value.Schema:
			v, ok := c.Config.Get(part)
			if !ok {
				return nil
			}
			cur = v
		case *value.List:
			i := 0
			for _, ch := range part {
				if ch < '0' || ch > '9' {
					return nil
				}
				i = i*10 + int(ch-'0')
			}
			if i >= len(c.Elems) {
				return nil
			}
			cur = c.Elems[i]
		default:
			return nil
		}
	}
	return cur
}

// tplRender renders a value as handlebars-rust's JsonRender does.
func tplRender(v value.Value) string {
	switch x := v.(type) {
	case nil, value.NoneType, value.UndefinedType:
		return ""
	case value.Str:
		return string(x)
	case value.Bool:
		if x {
			return "true"
		}
		return "false"
	case value.Int, value.Float, value.Unit:
		return value.CompactJSON(x)
	case *value.List:
		parts := make([]string, 0, len(x.Elems))
		for _, e := range x.Elems {
			if value.IsUndefined(e) {
				continue
			}
			parts = append(parts, tplRender(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *value.Dict, *value.Schema:
		return "[object]"
	}
	return ""
}

func tplTruthy(v value.Value) bool {
	switch x := v.(type) {
	case nil, value.NoneType, value.UndefinedType:
		return false
	case *value.Schema:
		return x.Config.Len() > 0
	}
	return v.Truth()
}

// HTMLEscape escapes like handlebars' html_escape.
func HTMLEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;", "`", "&#x60;", "=", "&#x3D;")
	return r.Replace(s)
}

func tplExec(b *strings.Builder, nodes []*tplNode, sc *tplScope) error {
	for _, n := range nodes {
		switch {
		case n.tag != nil:
			t := n.tag
			text := t.text
			raw := t.triple
			if strings.HasPrefix(text, "&") {
				text, raw = strings.TrimSpace(text[1:]), true
			}
			name, hasArgs := text, false
			if i := strings.IndexAny(text, " \t\r\n"); i >= 0 {
				name, hasArgs = text[:i], true
			}
			// A helper's name wins over the data's key of that name.
			if name == "raw" || name == "log" {
				continue
			}
			if hasArgs && !tplHelpers[name] && !strings.ContainsAny(name, "./") {
				return helperNotFound(t, name)
			}
			s := tplRender(sc.lookup(text))
			if !raw {
				s = HTMLEscape(s)
			}
			b.WriteString(s)
		case n.block != "":
			v := sc.lookup(n.arg)
			switch n.block {
			case "raw":
				if err := tplExec(b, n.body, sc); err != nil {
					return err
				}
			case "if", "unless":
				cond := tplTruthy(v)
				if n.block == "unless" {
					cond = !cond
				}
				body := n.body
				if !cond {
					body = n.inverse
				}
				if err := tplExec(b, body, sc); err != nil {
					return err
				}
			case "with":
				if !tplTruthy(v) {
					if err := tplExec(b, n.inverse, sc); err != nil {
						return err
					}
					continue
				}
				if err := tplExec(b, n.body, &tplScope{ctx: v, parent: sc}); err != nil {
					return err
				}
			case "each":
				any := false
				switch c := v.(type) {
				case *value.List:
					for i, e := range c.Elems {
						any = true
						vars := map[string]value.Value{"@index": value.Int(i), "@first": value.Bool(i == 0), "@last": value.Bool(i == len(c.Elems)-1)}
						if err := tplExec(b, n.body, &tplScope{ctx: e, parent: sc, vars: vars}); err != nil {
							return err
						}
					}
				case *value.Dict, *value.Schema:
					d, _ := value.AsDict(c)
					for i, e := range d.Entries() {
						any = true
						vars := map[string]value.Value{"@key": value.Str(e.Key), "@index": value.Int(i), "@first": value.Bool(i == 0), "@last": value.Bool(i == d.Len()-1)}
						if err := tplExec(b, n.body, &tplScope{ctx: e.Value, parent: sc, vars: vars}); err != nil {
							return err
						}
					}
				}
				if !any {
					if err := tplExec(b, n.inverse, sc); err != nil {
						return err
					}
				}
			default:
				return helperNotFound(n.pos, n.block)
			}
		default:
			b.WriteString(n.text)
		}
	}
	return nil
}

// ExecuteTemplate renders a Handlebars template against data.
func ExecuteTemplate(tmpl string, data value.Value) (string, error) {
	toks, err := tplLex(tmpl)
	if err != nil {
		return "", err
	}
	applyWhitespaceRules(toks)
	nodes, err := tplParse(toks)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := tplExec(&b, nodes, &tplScope{ctx: data}); err != nil {
		return "", err
	}
	return b.String(), nil
}

func init() {
	m := newModule("template")
	def(m, "execute", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		tmpl, ok := strArg(args, kwargs, 0, "template")
		if !ok {
			return nil, evalErr("execute() takes exactly one argument (0 given)")
		}
		data, ok := arg(args, kwargs, 1, "data")
		if !ok || value.IsNoneOrUndefined(data) {
			data = value.NewDict(0)
		}
		s, err := ExecuteTemplate(tmpl, data)
		if err != nil {
			return nil, err
		}
		return value.Str(s), nil
	})
	def(m, "html_escape", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "data")
		if !ok {
			return nil, evalErr("html_escape() takes exactly one argument (0 given)")
		}
		return value.Str(HTMLEscape(s)), nil
	})
}
