package check

import (
	"sort"
	"strings"
)

// suggestions returns the candidates the official engine offers for a
// misspelt name: Jaro-Winkler similarity above 0.8, least similar first (the
// order of the `suggestions` crate it uses).
func suggestions(name string, candidates []string) []string {
	type cand struct {
		score float64
		name  string
	}
	var cs []cand
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] {
			continue
		}
		seen[c] = true
		if s := jaroWinkler(name, c); s > 0.8 {
			cs = append(cs, cand{s, c})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score < cs[j].score })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// suggestionText formats suggestions as the official engine does, a Rust
// debug print of a vector of strings: `, did you mean '["a", "b"]'?`.
func suggestionText(suggs []string) string {
	if len(suggs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(", did you mean '[")
	for i, s := range suggs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(rustDebugString(s))
	}
	b.WriteString("]'?")
	return b.String()
}

// jaroWinkler is the similarity of the strsim 0.10 crate: Jaro similarity
// plus a bonus for the whole common prefix (not capped at four characters).
func jaroWinkler(a, b string) float64 {
	ar, br := []rune(a), []rune(b)
	j := jaro(ar, br)
	prefix := 0
	for prefix < len(ar) && prefix < len(br) && ar[prefix] == br[prefix] {
		prefix++
	}
	jw := j + 0.1*float64(prefix)*(1-j)
	if jw > 1 {
		return 1
	}
	return jw
}

func jaro(a, b []rune) float64 {
	la, lb := len(a), len(b)
	switch {
	case la == 0 && lb == 0:
		return 1
	case la == 0 || lb == 0:
		return 0
	case la == 1 && lb == 1:
		if a[0] == b[0] {
			return 1
		}
		return 0
	}
	rng := max(la, lb)/2 - 1
	consumed := make([]bool, lb)
	matches, transpositions := 0.0, 0.0
	bMatchIndex := 0
	for i, ac := range a {
		lo := 0
		if i > rng {
			lo = i - rng
		}
		hi := min(lb-1, i+rng)
		if lo > hi {
			continue
		}
		for j := lo; j <= hi; j++ {
			if ac == b[j] && !consumed[j] {
				consumed[j] = true
				matches++
				if j < bMatchIndex {
					transpositions++
				}
				bMatchIndex = j
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	return (matches/float64(la) + matches/float64(lb) + (matches-transpositions)/matches) / 3
}
