package syntax

type parser struct {
	file   string
	src    []byte
	errors ErrorList
}

func newParser(filename string, src []byte) *parser {
	return &parser{file: filename, src: src}
}

func (p *parser) parseModule() *Module {
	p.errors = append(p.errors, &Error{Pos: Position{File: p.file, Line: 1, Col: 1}, Kind: KindInvalidSyntax, Msg: "parser not implemented yet"})
	return &Module{Filename: p.file}
}
