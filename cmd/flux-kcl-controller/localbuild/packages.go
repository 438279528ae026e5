package localbuild

import (
	"fmt"
	"io"

	"github.com/kcl-lang/flux-kcl-controller/internal/kclpackage"
	"github.com/kcl-lang/flux-kcl-controller/internal/workerclient"
)

// DefaultPackages is the package configuration of a workstation: the user's
// cache folder, the compiler's limits.
func DefaultPackages() kclpackage.Config {
	c := kclpackage.DefaultConfig()
	c.CacheDir = kclpackage.UserCacheDir()
	return c
}

// logPackages logs what each kcl.mod dependency resolved to.
func logPackages(log io.Writer, packages []workerclient.Package) {
	for _, p := range packages {
		pinned := "not locked"
		switch {
		case p.Locked:
			pinned = "locked, sum verified"
		case p.Vendored:
			pinned = "vendored"
		}
		at := ""
		if p.Digest != "" {
			at = " @ " + p.Digest
		}
		fmt.Fprintf(log, "package %s %s ← %s%s (%s)\n", p.Name, p.Version, p.Source, at, pinned)
	}
}
