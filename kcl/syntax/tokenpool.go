package syntax

import "sync"

// A file has a token for every 3-4 bytes, so the parser's token slice is its
// largest allocation, big enough to bypass the allocator's caches even for
// small files. The AST keeps no token, so parsers recycle their slices.
var tokenPool sync.Pool // of *[]Token, cleared, length 0

func getTokens() []Token {
	if b, ok := tokenPool.Get().(*[]Token); ok {
		return *b
	}
	return nil
}

// releaseTokens gives the parser's token slice back to the pool; the parser
// must not be used afterwards.
func (p *parser) releaseTokens() {
	// Only the part the scanner and splitComments wrote needs clearing (the
	// rest is still zero); cleared slots keep no source text alive.
	clear(p.toks[:max(p.scanned, len(p.toks))])
	b := p.toks[:0]
	p.toks, p.tok, p.prev = nil, nil, nil
	tokenPool.Put(&b)
}
