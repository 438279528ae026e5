package modules

import (
	"encoding/binary"
	"hash"
	"math/bits"
)

// A small BLAKE3 (default hash mode, 32-byte output) for crypto.blake3: the
// standard library has none, and the engine takes no third-party crypto.

var blake3IV = [8]uint32{0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19}

var blake3Perm = [16]int{2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8}

const (
	b3ChunkStart = 1 << 0
	b3ChunkEnd   = 1 << 1
	b3Parent     = 1 << 2
	b3Root       = 1 << 3
	b3BlockLen   = 64
	b3ChunkLen   = 1024
)

func b3g(s *[16]uint32, a, b, c, d int, mx, my uint32) {
	s[a] = s[a] + s[b] + mx
	s[d] = bits.RotateLeft32(s[d]^s[a], -16)
	s[c] = s[c] + s[d]
	s[b] = bits.RotateLeft32(s[b]^s[c], -12)
	s[a] = s[a] + s[b] + my
	s[d] = bits.RotateLeft32(s[d]^s[a], -8)
	s[c] = s[c] + s[d]
	s[b] = bits.RotateLeft32(s[b]^s[c], -7)
}

func b3compress(cv [8]uint32, m [16]uint32, counter uint64, blockLen, flags uint32) [16]uint32 {
	s := [16]uint32{cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7],
		blake3IV[0], blake3IV[1], blake3IV[2], blake3IV[3], uint32(counter), uint32(counter >> 32), blockLen, flags}
	for r := 0; r < 7; r++ {
		b3g(&s, 0, 4, 8, 12, m[0], m[1])
		b3g(&s, 1, 5, 9, 13, m[2], m[3])
		b3g(&s, 2, 6, 10, 14, m[4], m[5])
		b3g(&s, 3, 7, 11, 15, m[6], m[7])
		b3g(&s, 0, 5, 10, 15, m[8], m[9])
		b3g(&s, 1, 6, 11, 12, m[10], m[11])
		b3g(&s, 2, 7, 8, 13, m[12], m[13])
		b3g(&s, 3, 4, 9, 14, m[14], m[15])
		if r < 6 {
			var p [16]uint32
			for i := range p {
				p[i] = m[blake3Perm[i]]
			}
			m = p
		}
	}
	for i := 0; i < 8; i++ {
		s[i] ^= s[i+8]
		s[i+8] ^= cv[i]
	}
	return s
}

func b3words(block []byte) [16]uint32 {
	var buf [b3BlockLen]byte
	copy(buf[:], block)
	var m [16]uint32
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(buf[i*4:])
	}
	return m
}

type b3output struct {
	cv       [8]uint32
	block    [16]uint32
	counter  uint64
	blockLen uint32
	flags    uint32
}

func (o b3output) chainingValue() [8]uint32 {
	s := b3compress(o.cv, o.block, o.counter, o.blockLen, o.flags)
	var cv [8]uint32
	copy(cv[:], s[:8])
	return cv
}

type b3chunk struct {
	cv        [8]uint32
	counter   uint64
	buf       []byte
	compressd int
}

func (c *b3chunk) len() int { return c.compressd*b3BlockLen + len(c.buf) }

func (c *b3chunk) startFlag() uint32 {
	if c.compressd == 0 {
		return b3ChunkStart
	}
	return 0
}

func (c *b3chunk) update(p []byte) {
	for len(p) > 0 {
		if len(c.buf) == b3BlockLen {
			s := b3compress(c.cv, b3words(c.buf), c.counter, b3BlockLen, c.startFlag())
			copy(c.cv[:], s[:8])
			c.compressd++
			c.buf = c.buf[:0]
		}
		n := min(b3BlockLen-len(c.buf), len(p))
		c.buf = append(c.buf, p[:n]...)
		p = p[n:]
	}
}

func (c *b3chunk) output() b3output {
	return b3output{cv: c.cv, block: b3words(c.buf), counter: c.counter, blockLen: uint32(len(c.buf)), flags: c.startFlag() | b3ChunkEnd}
}

func b3parent(left, right [8]uint32) b3output {
	var m [16]uint32
	copy(m[:8], left[:])
	copy(m[8:], right[:])
	return b3output{cv: blake3IV, block: m, blockLen: b3BlockLen, flags: b3Parent}
}

type blake3 struct {
	chunk b3chunk
	stack [][8]uint32
}

func newBlake3() hash.Hash {
	h := &blake3{}
	h.Reset()
	return h
}

func (h *blake3) Reset() {
	h.chunk = b3chunk{cv: blake3IV, buf: make([]byte, 0, b3BlockLen)}
	h.stack = h.stack[:0]
}

func (h *blake3) Size() int      { return 32 }
func (h *blake3) BlockSize() int { return b3BlockLen }

func (h *blake3) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if h.chunk.len() == b3ChunkLen {
			cv := h.chunk.output().chainingValue()
			total := h.chunk.counter + 1
			for total&1 == 0 {
				cv = b3parent(h.stack[len(h.stack)-1], cv).chainingValue()
				h.stack = h.stack[:len(h.stack)-1]
				total >>= 1
			}
			h.stack = append(h.stack, cv)
			h.chunk = b3chunk{cv: blake3IV, counter: h.chunk.counter + 1, buf: h.chunk.buf[:0]}
		}
		k := min(b3ChunkLen-h.chunk.len(), len(p))
		h.chunk.update(p[:k])
		p = p[k:]
	}
	return n, nil
}

func (h *blake3) Sum(b []byte) []byte {
	out := h.chunk.output()
	for i := len(h.stack) - 1; i >= 0; i-- {
		out = b3parent(h.stack[i], out.chainingValue())
	}
	s := b3compress(out.cv, out.block, 0, out.blockLen, out.flags|b3Root)
	var res [32]byte
	for i := 0; i < 8; i++ {
		binary.LittleEndian.PutUint32(res[i*4:], s[i])
	}
	return append(b, res[:]...)
}
