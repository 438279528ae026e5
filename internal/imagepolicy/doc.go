// Package imagepolicy finds `# {"$imagepolicy": "ns:name"}` markers in a KCL program and
// computes the literal rewrites that make the program follow Flux ImagePolicies without
// any Git commit.
//
// A marker annotates the string literal immediately before it on the same line. Markers
// are found with the KCL engine's own scanner (comments and string tokens with exact byte
// offsets), never with regular expressions over raw text, so `#` inside strings and
// multi-line strings cannot fool it, and a rewrite changes only the bytes of one literal.
//
// A policy may move the tag or the digest of an image, never its repository: when the
// policy's latestRef names another repository the KCLRun is held, as it is when the
// policy is missing or has no latestRef yet.
package imagepolicy
