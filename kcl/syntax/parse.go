package syntax

// ParseFile parses one KCL file. On failure the error is the first *Error; the
// returned module is still usable for tooling (it holds what was parsed).
func ParseFile(filename string, src []byte) (*Module, error) {
	m, errs := ParseFileAll(filename, src)
	if len(errs) > 0 {
		return m, errs[0]
	}
	return m, nil
}

// ParseFileAll parses one file and returns every syntax error in source order.
func ParseFileAll(filename string, src []byte) (*Module, ErrorList) {
	p := newParser(filename, src)
	m := p.parseModule()
	return m, p.errors
}
