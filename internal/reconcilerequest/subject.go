package reconcilerequest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// Subject scheme: one subject per KCLRun, so that the stream's per-subject limit
// coalesces a burst of changes to one KCLRun into a single pending request. The
// prefix is the shard's (shard.Name.SubjectPrefix: fkc.v1.reconcile unsharded).

// Subject is the subject carrying the reconcile requests of one KCLRun of shard s:
// <prefix>.<namespace>.<name>, both escaped by EscapeToken.
func Subject(s shard.Name, namespace, name string) string {
	return s.SubjectPrefix() + "." + EscapeToken(namespace) + "." + EscapeToken(name)
}

// ParseSubject returns the namespace and name of the KCLRun a subject of shard s is for.
func ParseSubject(s shard.Name, subject string) (namespace, name string, err error) {
	prefix := s.SubjectPrefix()
	rest, ok := strings.CutPrefix(subject, prefix+".")
	if !ok {
		return "", "", fmt.Errorf("subject %q is not under %s", subject, prefix)
	}
	tokens := strings.Split(rest, ".")
	if len(tokens) != 2 {
		return "", "", fmt.Errorf("subject %q: want %s.<namespace>.<name>", subject, prefix)
	}
	if namespace, err = UnescapeToken(tokens[0]); err != nil {
		return "", "", fmt.Errorf("subject %q: namespace: %w", subject, err)
	}
	if name, err = UnescapeToken(tokens[1]); err != nil {
		return "", "", fmt.Errorf("subject %q: name: %w", subject, err)
	}
	return namespace, name, nil
}

// EscapeToken turns a Kubernetes name into one NATS subject token.
//
// Kubernetes names hold [a-z0-9.-]; a NATS token can't hold '.', so '.' becomes
// '_' (which Kubernetes names never contain), keeping subjects readable. Any
// other byte outside [a-z0-9-] — including '_' and '%' themselves — becomes
// %XX, so the mapping stays reversible for whatever string is passed.
func EscapeToken(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-':
			b.WriteByte(c)
		case c == '.':
			b.WriteByte('_')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// UnescapeToken reverses EscapeToken.
func UnescapeToken(token string) (string, error) {
	var b strings.Builder
	b.Grow(len(token))
	for i := 0; i < len(token); i++ {
		c := token[i]
		switch c {
		case '_':
			b.WriteByte('.')
		case '%':
			if i+2 >= len(token) {
				return "", fmt.Errorf("truncated escape in %q", token)
			}
			v, err := strconv.ParseUint(token[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("bad escape %q in %q: %w", token[i:i+3], token, err)
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
