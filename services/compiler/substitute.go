package compiler

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	programv1 "github.com/kcl-lang/flux-kcl-controller/proto/program/v1"
)

// substitutionError means the program on disk is not what the resolver saw.
type substitutionError struct{ msg string }

func (e *substitutionError) Error() string { return e.msg }

// applySubstitutions reads the files named by the substitutions (relative to the
// artifact root) and returns their edited content keyed by their path relative to
// the program directory (which may climb out of it, never out of the artifact), for kcl.Options.FileOverrides: the artifact cache on disk
// is shared and stays untouched.
func applySubstitutions(root, programPath string, subs []*programv1.Substitution) (map[string][]byte, error) {
	if len(subs) == 0 {
		return nil, nil
	}
	byFile := map[string][]*programv1.Substitution{}
	for _, s := range subs {
		file, err := cleanRelative(s.GetFile())
		if err != nil {
			return nil, &substitutionError{fmt.Sprintf("substitution file %q: %v", s.GetFile(), err)}
		}
		byFile[file] = append(byFile[file], s)
	}
	overrides := make(map[string][]byte, len(byFile))
	for file, fileSubs := range byFile {
		// A file outside the program directory (an entry file a settings
		// file lists from another folder of the artifact) is keyed by its
		// path from there, "../base/base.k": the engine reads the artifact.
		inProgram, err := filepath.Rel(filepath.FromSlash(programPath), filepath.FromSlash(file))
		if err != nil {
			return nil, &substitutionError{fmt.Sprintf("substitution file %s: %v", file, err)}
		}
		content, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			return nil, &substitutionError{fmt.Sprintf("substitution file %s: %v", file, err)}
		}
		// Splice from the end so earlier spans keep their offsets.
		sort.Slice(fileSubs, func(i, j int) bool { return fileSubs[i].GetStart() > fileSubs[j].GetStart() })
		limit := int64(len(content))
		for _, s := range fileSubs {
			start, end := s.GetStart(), s.GetEnd()
			if start < 0 || start > end || end > limit {
				return nil, &substitutionError{fmt.Sprintf("%s: substitution span [%d,%d) is out of range or overlaps another", file, start, end)}
			}
			if string(content[start:end]) != s.GetOld() {
				return nil, &substitutionError{fmt.Sprintf("%s: bytes [%d,%d) are %q, not %q: the program changed since it was resolved", file, start, end, content[start:end], s.GetOld())}
			}
			edited := make([]byte, 0, len(content)-int(end-start)+len(s.GetNew()))
			edited = append(edited, content[:start]...)
			edited = append(edited, s.GetNew()...)
			edited = append(edited, content[end:]...)
			content = edited
			limit = start
		}
		overrides[inProgram] = content
	}
	return overrides, nil
}

// cleanRelative validates a slash-separated path that must stay inside its root.
func cleanRelative(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if strings.Contains(p, "\\") || path.IsAbs(p) || filepath.IsAbs(p) {
		return "", fmt.Errorf("must be a relative slash-separated path")
	}
	cleaned := path.Clean(p)
	if cleaned == ".." || strings.HasPrefix(cleaned, "../") {
		return "", fmt.Errorf("escapes the root")
	}
	return cleaned, nil
}
