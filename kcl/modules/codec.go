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
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, evalErr("base64 decode error: %v", err)
		}
		if !utf8.Valid(b) {
			return nil, evalErr("base64 decode error: the decoded bytes are not valid UTF-8")
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
			p, ok := strArg(args, kwargs, 0, "filepath")
			if !ok {
				return nil, missing(name, "filepath")
			}
			b, err := readFile(t, p)
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
