package builtins

import (
	"strings"
	"unicode"
)

// Rust's str::to_uppercase/to_lowercase apply Unicode's full case mappings
// (SpecialCasing.txt): ß upper-cases to "SS", ligatures expand, İ lower-cases
// to "i̇" and a word-final Σ to ς. Go's per-rune mapping does none of that.

var specialUpper = map[rune]string{
	0x00DF: "SS", 0xFB00: "FF", 0xFB01: "FI", 0xFB02: "FL", 0xFB03: "FFI", 0xFB04: "FFL",
	0xFB05: "ST", 0xFB06: "ST", 0x0149: "\u02BCN", 0x01F0: "J\u030C", 0x0390: "\u0399\u0308\u0301",
	0x03B0: "\u03A5\u0308\u0301", 0x0587: "\u0535\u0552", 0x1E96: "H\u0331", 0x1E97: "T\u0308",
	0x1E98: "W\u030A", 0x1E99: "Y\u030A", 0x1E9A: "A\u02BE", 0xFB13: "\u0544\u0546",
	0xFB14: "\u0544\u0535", 0xFB15: "\u0544\u053B", 0xFB16: "\u054E\u0546", 0xFB17: "\u0544\u053D",
}

var specialTitle = map[rune]string{
	0x00DF: "Ss", 0xFB00: "Ff", 0xFB01: "Fi", 0xFB02: "Fl", 0xFB03: "Ffi", 0xFB04: "Ffl",
	0xFB05: "St", 0xFB06: "St", 0x0149: "\u02BCN", 0x01F0: "J\u030C", 0x0390: "\u0399\u0308\u0301",
	0x03B0: "\u03A5\u0308\u0301", 0x0587: "\u0535\u0582", 0x1E96: "H\u0331", 0x1E97: "T\u0308",
	0x1E98: "W\u030A", 0x1E99: "Y\u030A", 0x1E9A: "A\u02BE", 0xFB13: "\u0544\u0576",
	0xFB14: "\u0544\u0565", 0xFB15: "\u0544\u056B", 0xFB16: "\u054E\u0576", 0xFB17: "\u0544\u056D",
}

func upperText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if m, ok := specialUpper[r]; ok {
			b.WriteString(m)
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

func titleRune(r rune) string {
	if m, ok := specialTitle[r]; ok {
		return m
	}
	return string(unicode.ToTitle(r))
}

// isCased and isCaseIgnorable approximate Unicode's Cased and Case_Ignorable
// properties for the final-sigma rule.
func isCased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
}

func isCaseIgnorable(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) || r == '\'' || r == '.' || r == ':' || r == '\u00B7' || r == '\u2019'
}

func lowerText(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch r {
		case 0x0130:
			b.WriteString("i\u0307")
			continue
		case 0x03A3: // Σ: ς at the end of a word
			before := false
			for j := i - 1; j >= 0; j-- {
				if isCaseIgnorable(rs[j]) {
					continue
				}
				before = isCased(rs[j])
				break
			}
			after := false
			for j := i + 1; j < len(rs); j++ {
				if isCaseIgnorable(rs[j]) {
					continue
				}
				after = isCased(rs[j])
				break
			}
			if before && !after {
				b.WriteRune(0x03C2)
			} else {
				b.WriteRune(0x03C3)
			}
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
