package syntax

// Scan returns the tokens of a file, comments included, ending with EOF.
func Scan(filename string, src []byte) ([]Token, error) {
	s := newScanner(filename, src)
	toks := s.scanAll()
	if len(s.errors) > 0 {
		return toks, s.errors[0]
	}
	return toks, nil
}

type scanner struct {
	file   string
	src    []byte
	errors ErrorList
}

func newScanner(filename string, src []byte) *scanner { return &scanner{file: filename, src: src} }

func (s *scanner) scanAll() []Token { return []Token{{Kind: EOF, Line: 1, Col: 1, EndLine: 1, EndCol: 1}} }
