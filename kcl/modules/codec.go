package modules

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/kcl-lang/flux-kcl-controller/kcl/value"
)

func init() {
	b64 := newModule("base64")
	def(b64, "encode", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "value")
		if !ok {
			return nil, missing("encode", "value")
		}
		return value.Str(base64.StdEncoding.EncodeToString([]byte(s))), nil
	})
	def(b64, "decode", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "value")
		if !ok {
			return nil, missing("decode", "value")
		}
		b, err := decodeBase64(s)
		if err != nil {
			return nil, evalErr("called `Result::unwrap()` on an `Err` value: %s", err)
		}
		if !utf8.Valid(b) {
			return nil, evalErr("called `Result::unwrap()` on an `Err` value: %s", utf8Error(b))
		}
		return value.Str(b), nil
	})

	b32 := newModule("base32")
	def(b32, "encode", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "value")
		if !ok {
			return nil, missing("encode", "value")
		}
		return value.Str(base32.StdEncoding.EncodeToString([]byte(s))), nil
	})
	def(b32, "decode", func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
		s, ok := strArg(args, kwargs, 0, "value")
		if !ok {
			return nil, missing("decode", "value")
		}
		b, err := base32.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, missing("decode", "value") // the runtime reports a failed decode this way
		}
		if !utf8.Valid(b) {
			return value.None, nil
		}
		return value.Str(b), nil
	})

	c := newModule("crypto")
	hasher := func(name string, mk func() hash.Hash) {
		def(c, name, func(_ *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
			s, ok := strArg(args, kwargs, 0, "value")
			if !ok {
				return nil, missing(name, "value")
			}
			h := mk()
			h.Write([]byte(s))
			return value.Str(hex.EncodeToString(h.Sum(nil))), nil
		})
	}
	hasher("md5", md5.New)
	hasher("sha1", sha1.New)
	hasher("sha224", sha256.New224)
	hasher("sha256", sha256.New)
	hasher("sha384", sha512.New384)
	hasher("sha512", sha512.New)
	hasher("blake3", newBlake3)
	def(c, "uuid", func(_ *value.Thread, _ *value.Builtin, _ []value.Value, _ []value.KV) (value.Value, error) {
		return value.Str(uuidV4()), nil
	})
	fileHasher := func(name string, mk func() hash.Hash) {
		def(c, name, func(t *value.Thread, _ *value.Builtin, args []value.Value, kwargs []value.KV) (value.Value, error) {
			p, ok := pathArg(t, args, kwargs, 0, "filepath")
			if !ok {
				return nil, missing(name, "filepath")
			}
			b, err := readFile(t, p)
			// 0.12.1 words a failed open and a failed read apart.
			var pe *fs.PathError
			if err != nil && t != nil && t.Host != nil && errors.As(err, &pe) && pe.Op == "read" {
				return nil, evalErr("failed to read file '%s': %s", p, ioText(err))
			}
			if err != nil && t != nil && t.Host != nil {
				return nil, evalErr("failed to access file '%s': %s", p, ioText(err))
			}
			if err != nil {
				return nil, evalErr("failed to access file '%s': %v", p, errors.Unwrap(err))
			}
			h := mk()
			h.Write(b)
			return value.Str(hex.EncodeToString(h.Sum(nil))), nil
		})
	}
	fileHasher("filesha256", sha256.New)
	fileHasher("filesha512", sha512.New)
	fileHasher("fileblake3", newBlake3)
}

var _ fs.FS

func uuidV4() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// decodeBase64 decodes as the runtime's base64 crate does: padding optional,
// the bits after the last symbol zero, errors named as its DecodeError
// (InvalidByte(offset, byte), InvalidLength, InvalidLastSymbol(offset, byte)).
func decodeBase64(s string) ([]byte, error) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '=' && strings.IndexByte(alphabet, c) < 0 {
			return nil, fmt.Errorf("InvalidByte(%d, %d)", i, c)
		}
	}
	if len(s)%4 == 1 {
		return nil, errors.New("InvalidLength")
	}
	body := s
	if p := strings.IndexByte(s, '='); p >= 0 {
		// padding only at the end, after two or three symbols of a quad
		if strings.Trim(s[p:], "=") != "" || p%4 < 2 || len(s)-p > 2 {
			return nil, fmt.Errorf("InvalidByte(%d, 61)", p)
		}
		body = s[:p]
	}
	if n := len(body); n%4 != 0 {
		last := body[n-1]
		v := strings.IndexByte(alphabet, last)
		if mask := map[int]int{2: 0xF, 3: 0x3}[n%4]; v&mask != 0 {
			return nil, fmt.Errorf("InvalidLastSymbol(%d, %d)", n-1, last)
		}
	}
	return base64.RawStdEncoding.DecodeString(body)
}

// utf8Error is Rust's Debug of the Utf8Error of from_utf8 on b.
func utf8Error(b []byte) string {
	valid := 0
	for valid < len(b) {
		r, size := utf8.DecodeRune(b[valid:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		valid += size
	}
	// error_len is None when the input ends inside a sequence that could
	// still be valid, else the length of the invalid prefix (1 here: the
	// common case of a stray byte).
	rest := b[valid:]
	if len(rest) < 4 && !utf8.FullRune(rest) {
		return fmt.Sprintf("Utf8Error { valid_up_to: %d, error_len: None }", valid)
	}
	return fmt.Sprintf("Utf8Error { valid_up_to: %d, error_len: Some(1) }", valid)
}
