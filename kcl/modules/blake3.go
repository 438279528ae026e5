package modules

import (
	"hash"

	"lukechampine.com/blake3"
)

// newBlake3 is the hash of crypto.blake3 and crypto.fileblake3: BLAKE3 in its
// default mode with a 32-byte digest, as the runtime's blake3::hash.
func newBlake3() hash.Hash { return blake3.New(32, nil) }
