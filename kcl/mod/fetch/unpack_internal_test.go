package fetch

import (
	"archive/tar"
	"bytes"
	"errors"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
)

func tarOf(t *testing.T, entries ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range entries {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write(bytes.Repeat([]byte("x"), int(h.Size)))
		}
	}
	tw.Close()
	return buf.Bytes()
}

func TestUnpackRefusesEscapesLinksAndBombs(t *testing.T) {
	for name, c := range map[string]struct {
		tar  []byte
		want error
	}{
		"parent":   {tarOf(t, &tar.Header{Name: "../evil.k", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}), mod.ErrUnsafe},
		"absolute": {tarOf(t, &tar.Header{Name: "/etc/evil.k", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}), mod.ErrUnsafe},
		"symlink":  {tarOf(t, &tar.Header{Name: "link.k", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}), mod.ErrUnsafe},
		"hardlink": {tarOf(t, &tar.Header{Name: "link.k", Typeflag: tar.TypeLink, Linkname: "main.k"}), mod.ErrUnsafe},
		"too big":  {tarOf(t, &tar.Header{Name: "big.k", Typeflag: tar.TypeReg, Size: 2048, Mode: 0o644}), ErrTooLarge},
	} {
		if err := unpack(bytes.NewReader(c.tar), t.TempDir(), 1024); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", name, err, c.want)
		}
	}
}
