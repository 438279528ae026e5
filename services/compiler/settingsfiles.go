package compiler

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// missingSettingsFile is the first of spec.config.settings (relative to the
// program folder) that names a path inside the artifact where the artifact
// holds no file, as a missing spec.path is reported: the engine would only say
// "invalid setting file format". A file the unpacking skipped (a symlink) is
// missing too. Paths outside the artifact are left to the settings loader,
// which refuses them unread.
func missingSettingsFile(root, programDir string, settings []string) (string, bool) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", false
	}
	defer r.Close()
	for _, f := range settings {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(programDir, f)
		}
		rel, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if _, err := r.Stat(rel); errors.Is(err, fs.ErrNotExist) {
			return f, true
		}
	}
	return "", false
}
