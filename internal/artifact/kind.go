package artifact

import "errors"

// Kinds name a failed fetch in the workers' replies (their Error.kind), the
// same words from the compiler and the resolver.
const (
	KindFetchFailed    = "ArtifactFetchFailed"
	KindDigestMismatch = "ArtifactDigestMismatch"
	KindNotFound       = "ArtifactNotFound"
	KindTooLarge       = "ArtifactTooLarge"
	KindUnsafe         = "ArtifactUnsafe"
	// KindPathNotFound is a program path the artifact does not hold.
	KindPathNotFound = "PathNotFound"
)

// KindOf names the failure of Fetch or Open.
func KindOf(err error) string {
	switch {
	case errors.Is(err, ErrDigestMismatch):
		return KindDigestMismatch
	case errors.Is(err, ErrNotFound):
		return KindNotFound
	case errors.Is(err, ErrTooLarge):
		return KindTooLarge
	case errors.Is(err, ErrUnsafePath):
		return KindUnsafe
	default:
		return KindFetchFailed
	}
}

// Permanent reports whether a failure of this kind is a property of the
// artifact's content, which its digest fixes: fetching it again cannot
// succeed, only a new revision can. The others (not found, digest mismatch,
// connection failures) may pass while source-controller replaces the file.
func Permanent(kind string) bool {
	return kind == KindTooLarge || kind == KindUnsafe || kind == KindPathNotFound
}
