package mod

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// sumIgnores are kpm's: files under .git differ between clones of one commit,
// and kpm keeps downloaded .tar files next to the package.
var sumIgnores = []string{".git", ".tar"}

// Sum is kpm's package checksum (utils.HashDir), the `sum` of kcl.mod.lock and of
// the org.kcllang.package.sum annotation: the base64 SHA-256 of the contents of
// every regular file under dir, concatenated in lexical walk order, skipping
// paths that contain ".git" or ".tar". Names and modes do not count, as in kpm.
// Symbolic links are refused: a package must not point outside itself.
func Sum(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, relErr := filepath.Rel(dir, path)
		if relErr != nil {
			return relErr
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: %s is a symbolic link", ErrUnsafe, filepath.ToSlash(rel))
		}
		if d.IsDir() {
			return nil
		}
		for _, ignore := range sumIgnores {
			if strings.Contains(filepath.ToSlash(rel), ignore) {
				return nil
			}
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%w: %s is not a regular file", ErrUnsafe, filepath.ToSlash(rel))
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(h, f)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("checksum of package: %w", err)
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}
