package modules

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

// hostGlob is file.glob as 0.12.1 lists files: the Rust glob crate (0.3)
// with its default options, whose rules Go's filepath.Glob does not share:
// `*` matches a leading dot, `**` is any depth of directories, a pattern
// starting with "." also matches the "." and ".." entries, a literal
// component is kept as written ("d/./e/.."), a leading "./" is dropped, the
// paths come sorted per directory, depth first. Each rule below is the
// crate's, measured with the official engine where a program can see it.
func hostGlob(h value.Host, pattern string) ([]string, error) {
	// The whole pattern is checked first: its errors give their position in it.
	if _, err := compileGlob(pattern); err != nil {
		return nil, evalErr("Failed to read glob pattern: %s", err)
	}
	scope, rest := ".", pattern
	if strings.HasPrefix(pattern, "/") {
		scope, rest = "/", pattern[1:]
	}
	var pats []*globPattern
	if scope == "/" && rest == "" {
		// The root alone is one empty component, found at the root.
		pats = append(pats, &globPattern{})
	} else if rest != "" {
		for _, c := range strings.Split(strings.TrimSuffix(rest, "/"), "/") {
			p, err := compileGlob(c)
			if err != nil {
				return nil, evalErr("Failed to read glob pattern: %s", err)
			}
			pats = append(pats, p)
		}
	}
	g := &globWalk{h: h, pats: pats, requireDir: strings.HasSuffix(pattern, "/")}
	if len(pats) == 0 {
		return []string{}, nil
	}
	g.fill(0, scope)
	matches := []string{}
	for len(g.todo) > 0 {
		e := g.todo[len(g.todo)-1]
		g.todo = g.todo[:len(g.todo)-1]
		if e.err != nil {
			return nil, evalErr("failed to access the file matching '%s': attempting to read `%s` resulted in an error: %s", pattern, e.path, ioText(e.err))
		}
		if e.idx < 0 {
			if !g.requireDir || g.isDir(e.path) {
				matches = append(matches, e.path)
			}
			continue
		}
		idx := e.idx
		if pats[idx].recursive {
			next := idx
			for next+1 < len(pats) && pats[next+1].recursive {
				next++
			}
			switch {
			case g.isDir(e.path):
				g.fill(next, e.path)
				if next == len(pats)-1 {
					// A trailing ** matches the directories themselves.
					matches = append(matches, e.path)
					continue
				}
				idx = next + 1
			case next == len(pats)-1:
				continue
			default:
				idx = next + 1
			}
		}
		// The crate skips names that are not UTF-8.
		if !utf8.ValidString(e.name) || !pats[idx].matches(e.name) {
			continue
		}
		if idx == len(pats)-1 {
			if !g.requireDir || g.isDir(e.path) {
				matches = append(matches, e.path)
			}
		} else {
			g.fill(idx+1, e.path)
		}
	}
	return matches, nil
}

// globWalk is the crate's iterator: a stack of paths still to match.
type globWalk struct {
	h          value.Host
	pats       []*globPattern
	requireDir bool // the pattern ends with "/"
	todo       []globTodo
}

// globTodo is a path to match against pats[idx] (its last component is
// name), one matched already (idx -1), or a directory that could not be read.
type globTodo struct {
	path, name string
	idx        int
	err        error
}

func (g *globWalk) isDir(p string) bool {
	info, err := g.h.Stat(p)
	return err == nil && info.IsDir()
}

// fill is the crate's fill_todo: what path holds for pats[idx].
func (g *globWalk) fill(idx int, path string) {
	add := func(next string) {
		if idx+1 == len(g.pats) {
			g.todo = append(g.todo, globTodo{path: next, idx: -1})
		} else {
			g.fill(idx+1, next)
		}
	}
	pat := g.pats[idx]
	isDir := g.isDir(path)
	curdir := path == "."
	if lit, ok := pat.literal(); ok {
		// No wildcard: the path is looked up, not listed. "." and ".."
		// need a directory before them; anything else must be there, a
		// broken symlink too (symlink_metadata).
		next := rustJoin(path, lit)
		if curdir {
			next = lit
		}
		special := lit == "." || lit == ".."
		if special && isDir {
			add(next)
		} else if !special {
			if _, err := g.h.Lstat(next); err == nil {
				add(next)
			}
		}
		return
	}
	if !isDir {
		return
	}
	names, err := g.h.ReadDir(path)
	if err != nil {
		g.todo = append(g.todo, globTodo{path: path, err: err})
		return
	}
	// Pushed last first, so that they are matched in byte order.
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(b, a) })
	for _, n := range names {
		child := n
		if !curdir {
			child = rustJoin(path, n)
		}
		g.todo = append(g.todo, globTodo{path: child, name: n, idx: idx})
	}
	if len(pat.tokens) > 0 && pat.tokens[0].kind == globChar && pat.tokens[0].c == '.' {
		for _, special := range []string{".", ".."} {
			if pat.matches(special) {
				add(rustJoin(path, special))
			}
		}
	}
}

// rustJoin is PathBuf::join on Unix: an absolute name replaces the path,
// and a separator is added unless the path is empty or ends with one.
func rustJoin(p, name string) string {
	switch {
	case strings.HasPrefix(name, "/"):
		return name
	case p == "" || strings.HasSuffix(p, "/"):
		return p + name
	}
	return p + "/" + name
}

// A globPattern is the crate's Pattern: tokens matched against one name.
type globPattern struct {
	tokens    []globToken
	recursive bool // the component is **
}

type globTokenKind int

const (
	globChar globTokenKind = iota
	globAnyChar
	globAnySequence
	globAnyRecursiveSequence
	globAnyWithin
	globAnyExcept
)

type globToken struct {
	kind  globTokenKind
	c     rune
	specs [][2]rune // AnyWithin, AnyExcept: ranges, a single char as c-c
}

// globPatternError prints as the crate's PatternError.
type globPatternError struct {
	pos int
	msg string
}

func (e *globPatternError) Error() string {
	return fmt.Sprintf("Pattern syntax error near position %d: %s", e.pos, e.msg)
}

// compileGlob is the crate's Pattern::new; positions count characters.
func compileGlob(pattern string) (*globPattern, error) {
	chars := []rune(pattern)
	p := &globPattern{}
	for i := 0; i < len(chars); {
		switch chars[i] {
		case '?':
			p.tokens = append(p.tokens, globToken{kind: globAnyChar})
			i++
		case '*':
			old := i
			for i < len(chars) && chars[i] == '*' {
				i++
			}
			switch count := i - old; {
			case count > 2:
				return nil, &globPatternError{old + 2, "wildcards are either regular `*` or recursive `**`"}
			case count == 2:
				// ** must be a whole path component.
				if !(i == 2 || chars[i-count-1] == '/') {
					return nil, &globPatternError{old - 1, "recursive wildcards must form a single path component"}
				}
				if i < len(chars) && chars[i] == '/' {
					i++
				} else if i != len(chars) {
					return nil, &globPatternError{i, "recursive wildcards must form a single path component"}
				}
				if n := len(p.tokens); !(n > 1 && p.tokens[n-1].kind == globAnyRecursiveSequence) {
					p.recursive = true
					p.tokens = append(p.tokens, globToken{kind: globAnyRecursiveSequence})
				}
			default:
				p.tokens = append(p.tokens, globToken{kind: globAnySequence})
			}
		case '[':
			if i+4 <= len(chars) && chars[i+1] == '!' {
				if j := slices.Index(chars[i+3:], ']'); j >= 0 {
					p.tokens = append(p.tokens, globToken{kind: globAnyExcept, specs: charSpecs(chars[i+2 : i+3+j])})
					i += j + 4
					continue
				}
			} else if i+3 <= len(chars) && chars[i+1] != '!' {
				if j := slices.Index(chars[i+2:], ']'); j >= 0 {
					p.tokens = append(p.tokens, globToken{kind: globAnyWithin, specs: charSpecs(chars[i+1 : i+2+j])})
					i += j + 3
					continue
				}
			}
			return nil, &globPatternError{i, "invalid range pattern"}
		default:
			p.tokens = append(p.tokens, globToken{kind: globChar, c: chars[i]})
			i++
		}
	}
	return p, nil
}

// charSpecs reads a bracket's contents: a-z ranges and single characters.
func charSpecs(s []rune) [][2]rune {
	var specs [][2]rune
	for i := 0; i < len(s); {
		if i+3 <= len(s) && s[i+1] == '-' {
			specs = append(specs, [2]rune{s[i], s[i+2]})
			i += 3
		} else {
			specs = append(specs, [2]rune{s[i], s[i]})
			i++
		}
	}
	return specs
}

// literal is the component itself when it has no wildcard.
func (p *globPattern) literal() (string, bool) {
	var b strings.Builder
	for _, t := range p.tokens {
		if t.kind != globChar {
			return "", false
		}
		b.WriteRune(t.c)
	}
	return b.String(), true
}

func (p *globPattern) matches(name string) bool {
	return p.matchFrom([]rune(name), 0) == globMatch
}

type globResult int

const (
	globMatch globResult = iota
	globSubPatternDoesntMatch
	globEntirePatternDoesntMatch
)

// matchFrom is the crate's matches_from with the default options: case
// sensitive, and neither a separator nor a leading dot needs a literal.
func (p *globPattern) matchFrom(name []rune, ti int) globResult {
	for ; ti < len(p.tokens); ti++ {
		switch t := p.tokens[ti]; t.kind {
		case globAnySequence, globAnyRecursiveSequence:
			for k := 0; k <= len(name); k++ {
				if m := p.matchFrom(name[k:], ti+1); m != globSubPatternDoesntMatch {
					return m
				}
			}
			return globSubPatternDoesntMatch
		default:
			if len(name) == 0 {
				return globEntirePatternDoesntMatch
			}
			c := name[0]
			name = name[1:]
			var ok bool
			switch t.kind {
			case globAnyChar:
				ok = true
			case globAnyWithin:
				ok = inSpecs(t.specs, c)
			case globAnyExcept:
				ok = !inSpecs(t.specs, c)
			default:
				ok = c == t.c
			}
			if !ok {
				return globSubPatternDoesntMatch
			}
		}
	}
	if len(name) == 0 {
		return globMatch
	}
	return globSubPatternDoesntMatch
}

func inSpecs(specs [][2]rune, c rune) bool {
	for _, s := range specs {
		if s[0] <= c && c <= s[1] {
			return true
		}
	}
	return false
}
