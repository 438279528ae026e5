//go:build !unix

package eval

import "io/fs"

// identityOf has no status-change time to rely on here: every run reads and
// hashes the file.
func identityOf(fs.FileInfo) (fileIdentity, bool) { return fileIdentity{}, false }
