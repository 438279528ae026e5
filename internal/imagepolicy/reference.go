package imagepolicy

import (
	"fmt"
	"regexp"
	"strings"
)

// Reference is a parsed container image reference.
type Reference struct {
	// Repository as written, without tag or digest ("nginx", "ghcr.io/org/app").
	Repository string
	Tag        string
	Digest     string
}

// referenceChars bounds what a reference may contain, so that a value taken from a
// policy's status can never break out of the KCL string literal it is written into.
var referenceChars = regexp.MustCompile(`^[A-Za-z0-9._:/@+-]+$`)

// ParseReference splits "repo[:tag][@digest]".
func ParseReference(s string) (Reference, error) {
	if s == "" || !referenceChars.MatchString(s) {
		return Reference{}, fmt.Errorf("%q is not an image reference", s)
	}
	var r Reference
	if i := strings.IndexByte(s, '@'); i >= 0 {
		r.Digest = s[i+1:]
		s = s[:i]
		if !strings.Contains(r.Digest, ":") {
			return Reference{}, fmt.Errorf("image reference digest %q is not algorithm:hex", r.Digest)
		}
	}
	// A tag follows the last ':' after the last '/', so "host:5000/app" has no tag.
	if i := strings.LastIndexByte(s, ':'); i > strings.LastIndexByte(s, '/') {
		r.Tag = s[i+1:]
		s = s[:i]
	}
	if s == "" {
		return Reference{}, fmt.Errorf("image reference has no repository")
	}
	r.Repository = s
	return r, nil
}

// NormalizeRepository gives the canonical name of a repository, so that "nginx",
// "docker.io/library/nginx" and "index.docker.io/library/nginx" compare equal.
func NormalizeRepository(repo string) string {
	domain, path := "docker.io", repo
	if i := strings.IndexByte(repo, '/'); i >= 0 {
		first := repo[:i]
		if strings.ContainsAny(first, ".:") || first == "localhost" || strings.ToLower(first) != first {
			domain, path = first, repo[i+1:]
		}
	}
	domain = strings.ToLower(domain)
	if domain == "index.docker.io" || domain == "registry-1.docker.io" {
		domain = "docker.io"
	}
	if domain == "docker.io" && !strings.Contains(path, "/") {
		path = "library/" + path
	}
	return domain + "/" + path
}

// SameRepository compares two repositories by their canonical names.
func SameRepository(a, b string) bool { return NormalizeRepository(a) == NormalizeRepository(b) }
