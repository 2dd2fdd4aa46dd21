package ssp

import (
	"encoding/binary"
	"hash/adler32"
	"math/bits"
	"slices"
)

// smallDeflate deflates instructions below compressBestMin bytes (a
// keystroke, its echo, a frame of a flood or a small repaint) as one
// DEFLATE block (RFC 1951): its matches found with a 4096-entry hash of
// the instruction itself, coded with whichever is shorter of the fixed
// Huffman codes and codes made for the block. It compresses about as well
// as compress/flate at level 1, whose writer holds 1.2 MB of tables for
// the life of the transport; this holds some 20 KB.
//
// smallDeflate is not safe for concurrent use.
type smallDeflate struct {
	table  [1 << smallHashBits]uint16 // position+1 of the last 4 bytes with each hash; 0: none
	tokens []token

	litFreq  [numLitLen]uint32
	distFreq [numDist]uint32
	lit      huffCode
	dist     huffCode
	cl       huffCode // the code-length code
	lens     []uint8  // the code lengths the header sends
	clSyms   []uint8  // they, run-length coded (16, 17, 18 with their extra bits)
	clExtra  []uint8
	hb       huffBuilder

	bits  uint64 // pending output bits, LSB first
	nbits uint
	out   []byte
}

// token is a literal byte (below 256), or a match: matchFlag, the length
// minus 3 in bits 16-23 and the distance minus 1 in bits 0-14.
type token uint32

const matchFlag token = 1 << 31

const (
	smallHashBits = 12
	smallMinMatch = 4   // bytes a match must have (the hash's width)
	smallMaxMatch = 258 // DEFLATE's longest
	numLitLen     = 286 // literal/length symbols used
	numFixedLit   = 288 // the fixed code's, two of them never used
	numDist       = 30  // distance symbols
	numCL         = 19  // code-length symbols
	maxCodeBits   = 15  // longest literal/length or distance code
	maxCLBits     = 7   // longest code-length code
)

// The length codes 257..285: base lengths and extra bits (RFC 1951
// section 3.2.5); the distance codes 0..29; and the order in which the
// code-length code's lengths are sent (section 3.2.7).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clOrder     = [numCL]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// fixedLit and fixedDist are the fixed Huffman codes (section 3.2.6).
var fixedLit, fixedDist = func() (lit, dist huffCode) {
	for s := range numFixedLit {
		switch {
		case s < 144:
			lit.len[s] = 8
		case s < 256:
			lit.len[s] = 9
		case s < 280:
			lit.len[s] = 7
		default:
			lit.len[s] = 8
		}
	}
	lit.assign(numFixedLit) // 286 and 287 count for the codes of the others
	for s := range numDist {
		dist.len[s] = 5
	}
	dist.assign(numDist)
	return lit, dist
}()

// compress appends the zlib stream of src (fewer than 32768 bytes) to dst.
func (d *smallDeflate) compress(dst, src []byte) []byte {
	d.tokenize(src)
	d.out, d.bits, d.nbits = append(dst, 0x78, 0x01), 0, 0 // deflate, 32 KiB window, fastest
	d.write(1, 1)                                          // BFINAL
	if dynamic := d.buildDynamic(); dynamic < d.cost(&fixedLit, &fixedDist) {
		d.write(2, 2) // BTYPE 10: dynamic codes
		d.writeHeader()
		d.writeTokens(&d.lit, &d.dist)
	} else {
		d.write(1, 2) // BTYPE 01: fixed codes
		d.writeTokens(&fixedLit, &fixedDist)
	}
	if d.nbits > 0 {
		d.out = append(d.out, byte(d.bits))
	}
	out := binary.BigEndian.AppendUint32(d.out, adler32.Checksum(src))
	d.out = nil
	return out
}

// tokenize turns src into literals and matches, counting their symbols.
func (d *smallDeflate) tokenize(src []byte) {
	clear(d.table[:])
	clear(d.litFreq[:])
	clear(d.distFreq[:])
	d.tokens = d.tokens[:0]
	for i := 0; i < len(src); {
		n, dist := d.match(src, i)
		if n == 0 {
			d.tokens = append(d.tokens, token(src[i]))
			d.litFreq[src[i]]++
			d.remember(src, i)
			i++
			continue
		}
		d.tokens = append(d.tokens, matchFlag|token(n-3)<<16|token(dist-1))
		d.litFreq[257+lengthCode(n)]++
		d.distFreq[distCode(dist)]++
		for end := i + n; i < end; i++ {
			d.remember(src, i)
		}
	}
	d.litFreq[256]++ // end of block
}

// hash4 hashes the 4 bytes of src at i.
func hash4(src []byte, i int) uint32 {
	return binary.LittleEndian.Uint32(src[i:]) * 2654435761 >> (32 - smallHashBits)
}

// remember records position i in the hash table.
func (d *smallDeflate) remember(src []byte, i int) {
	if i+smallMinMatch <= len(src) {
		d.table[hash4(src, i)] = uint16(i + 1)
	}
}

// match returns the length and distance of a match of the bytes at i
// with earlier ones, or 0.
func (d *smallDeflate) match(src []byte, i int) (n, dist int) {
	if i+smallMinMatch > len(src) {
		return 0, 0
	}
	p := int(d.table[hash4(src, i)]) - 1
	if p < 0 || binary.LittleEndian.Uint32(src[p:]) != binary.LittleEndian.Uint32(src[i:]) {
		return 0, 0
	}
	n = smallMinMatch
	for n < smallMaxMatch && i+n < len(src) && src[p+n] == src[i+n] {
		n++
	}
	return n, i - p
}

// lengthCode returns the index of the length code (257 + it) for n.
func lengthCode(n int) int {
	c := len(lengthBase) - 1
	for int(lengthBase[c]) > n {
		c--
	}
	return c
}

// distCode returns the distance code for dist.
func distCode(dist int) int {
	c := len(distBase) - 1
	for int(distBase[c]) > dist {
		c--
	}
	return c
}

// cost returns the bits the tokens take in codes lit and dist, with the
// extra bits.
func (d *smallDeflate) cost(lit, dist *huffCode) int {
	n := 0
	for s, f := range d.litFreq {
		n += int(f) * int(lit.len[s])
		if s > 256 {
			n += int(f) * int(lengthExtra[s-257])
		}
	}
	for s, f := range d.distFreq {
		n += int(f) * int(dist.len[s]+distExtra[s])
	}
	return n
}

// buildDynamic makes the block's own codes and returns the bits the block
// takes with them, header included.
func (d *smallDeflate) buildDynamic() int {
	d.hb.lengths(d.litFreq[:], d.lit.len[:numLitLen], maxCodeBits)
	d.lit.assign(numLitLen)
	d.hb.lengths(d.distFreq[:], d.dist.len[:numDist], maxCodeBits)
	if slices.Max(d.dist.len[:numDist]) == 0 {
		d.dist.len[0] = 1 // no match: one unused code (a decoder needs one)
	}
	d.dist.assign(numDist)
	hlit, hdist := d.usedLengths()
	d.runLengths(hlit, hdist)
	var clFreq [numCL]uint32
	for _, s := range d.clSyms {
		clFreq[s]++
	}
	d.hb.lengths(clFreq[:], d.cl.len[:numCL], maxCLBits)
	d.cl.assign(numCL)
	n := 5 + 5 + 4 + 3*d.hclen() + d.cost(&d.lit, &d.dist)
	for _, s := range d.clSyms {
		n += int(d.cl.len[s]) + int(clRepeatBits(s))
	}
	return n
}

// clRepeatBits returns the extra bits of code-length symbol s: 2, 3 and 7
// for the repeats 16, 17 and 18.
func clRepeatBits(s uint8) uint8 {
	switch s {
	case 16:
		return 2
	case 17:
		return 3
	case 18:
		return 7
	}
	return 0
}

// usedLengths returns how many literal/length and distance code lengths
// the header sends (HLIT + 257, HDIST + 1).
func (d *smallDeflate) usedLengths() (hlit, hdist int) {
	hlit, hdist = numLitLen, numDist
	for hlit > 257 && d.lit.len[hlit-1] == 0 {
		hlit--
	}
	for hdist > 1 && d.dist.len[hdist-1] == 0 {
		hdist--
	}
	return hlit, hdist
}

// runLengths codes the code lengths the header sends with the code-length
// alphabet: 0-15 as such, 16 repeating the previous length 3-6 times, 17
// and 18 runs of zeros of 3-10 and 11-138.
func (d *smallDeflate) runLengths(hlit, hdist int) {
	d.clSyms, d.clExtra = d.clSyms[:0], d.clExtra[:0]
	d.lens = append(append(d.lens[:0], d.lit.len[:hlit]...), d.dist.len[:hdist]...)
	all := d.lens
	for i := 0; i < len(all); {
		l, run := all[i], 1
		for i+run < len(all) && all[i+run] == l {
			run++
		}
		i += run
		switch {
		case l == 0:
			for run >= 11 {
				n := min(run, 138)
				d.clSyms, d.clExtra = append(d.clSyms, 18), append(d.clExtra, uint8(n-11))
				run -= n
			}
			if run >= 3 {
				d.clSyms, d.clExtra = append(d.clSyms, 17), append(d.clExtra, uint8(run-3))
				run = 0
			}
		default:
			d.clSyms, d.clExtra = append(d.clSyms, l), append(d.clExtra, 0)
			run--
			for run >= 3 {
				n := min(run, 6)
				d.clSyms, d.clExtra = append(d.clSyms, 16), append(d.clExtra, uint8(n-3))
				run -= n
			}
		}
		for ; run > 0; run-- {
			d.clSyms, d.clExtra = append(d.clSyms, l), append(d.clExtra, 0)
		}
	}
}

// hclen returns how many code-length code lengths the header sends.
func (d *smallDeflate) hclen() int {
	n := numCL
	for n > 4 && d.cl.len[clOrder[n-1]] == 0 {
		n--
	}
	return n
}

// writeHeader writes a dynamic block's header (section 3.2.7).
func (d *smallDeflate) writeHeader() {
	hlit, hdist := d.usedLengths()
	hclen := d.hclen()
	d.write(uint64(hlit-257), 5)
	d.write(uint64(hdist-1), 5)
	d.write(uint64(hclen-4), 4)
	for _, s := range clOrder[:hclen] {
		d.write(uint64(d.cl.len[s]), 3)
	}
	for i, s := range d.clSyms {
		d.writeCode(&d.cl, int(s))
		d.write(uint64(d.clExtra[i]), uint(clRepeatBits(s)))
	}
}

// writeTokens writes the tokens and the end of block in codes lit and dist.
func (d *smallDeflate) writeTokens(lit, dist *huffCode) {
	for _, t := range d.tokens {
		if t&matchFlag == 0 {
			d.writeCode(lit, int(t))
			continue
		}
		n, dd := int(t>>16&0xff)+3, int(t&0x7fff)+1
		c := lengthCode(n)
		d.writeCode(lit, 257+c)
		d.write(uint64(n-int(lengthBase[c])), uint(lengthExtra[c]))
		c = distCode(dd)
		d.writeCode(dist, c)
		d.write(uint64(dd-int(distBase[c])), uint(distExtra[c]))
	}
	d.writeCode(lit, 256)
}

// write appends the n low bits of v to the output, LSB first.
func (d *smallDeflate) write(v uint64, n uint) {
	d.bits |= v << d.nbits
	d.nbits += n
	for d.nbits >= 8 {
		d.out = append(d.out, byte(d.bits))
		d.bits >>= 8
		d.nbits -= 8
	}
}

// writeCode appends symbol s in code h: Huffman codes are packed most
// significant bit first.
func (d *smallDeflate) writeCode(h *huffCode, s int) {
	n := uint(h.len[s])
	d.write(uint64(bits.Reverse16(h.code[s])>>(16-n)), n)
}

// huffCode is a canonical Huffman code: each symbol's length (0: unused)
// and code.
type huffCode struct {
	len  [numFixedLit]uint8
	code [numFixedLit]uint16
}

// assign gives the first n symbols their canonical codes from their
// lengths (section 3.2.2).
func (h *huffCode) assign(n int) {
	var count, next [maxCodeBits + 2]uint16
	for _, l := range h.len[:n] {
		count[l]++
	}
	count[0] = 0
	code := uint16(0)
	for b := 1; b <= maxCodeBits+1; b++ {
		code = (code + count[b-1]) << 1
		next[b] = code
	}
	for s, l := range h.len[:n] {
		if l > 0 {
			h.code[s] = next[l]
			next[l]++
		}
	}
}

// huffBuilder computes Huffman code lengths, reusing its buffers.
type huffBuilder struct {
	nodes  []huffNode
	heap   []int32
	freqs  []uint32
	depths []uint8
}

// huffNode is a leaf (sym >= 0) or an inner node of a Huffman tree.
type huffNode struct {
	freq        uint32
	sym         int32
	left, right int32
}

// lengths sets lens to the lengths of a Huffman code for freq, none
// longer than limit: while the tree is too deep, the frequencies are
// halved (keeping every used symbol at least 1), which flattens it.
func (b *huffBuilder) lengths(freq []uint32, lens []uint8, limit int) {
	b.freqs = append(b.freqs[:0], freq...)
	for {
		if b.build(lens) <= limit {
			return
		}
		for i, f := range b.freqs {
			if f > 0 {
				b.freqs[i] = max(f/2, 1)
			}
		}
	}
}

// build sets lens to the lengths of a Huffman code for b.freqs and
// returns the longest. A single used symbol gets length 1.
func (b *huffBuilder) build(lens []uint8) int {
	clear(lens)
	b.nodes, b.heap = b.nodes[:0], b.heap[:0]
	for s, f := range b.freqs {
		if f > 0 {
			b.nodes = append(b.nodes, huffNode{freq: f, sym: int32(s), left: -1, right: -1})
			b.push(int32(len(b.nodes) - 1))
		}
	}
	switch len(b.nodes) {
	case 0:
		return 0
	case 1:
		lens[b.nodes[0].sym] = 1
		return 1
	}
	for len(b.heap) > 1 {
		l, r := b.pop(), b.pop()
		b.nodes = append(b.nodes, huffNode{freq: b.nodes[l].freq + b.nodes[r].freq, sym: -1, left: l, right: r})
		b.push(int32(len(b.nodes) - 1))
	}
	// Depths from the root (the last node) down: children follow their
	// parent in reverse creation order.
	b.depths = slices.Grow(b.depths[:0], len(b.nodes))[:len(b.nodes)]
	clear(b.depths)
	deepest := 0
	for i := len(b.nodes) - 1; i >= 0; i-- {
		n := &b.nodes[i]
		if n.sym >= 0 {
			lens[n.sym] = b.depths[i]
			deepest = max(deepest, int(b.depths[i]))
			continue
		}
		b.depths[n.left], b.depths[n.right] = b.depths[i]+1, b.depths[i]+1
	}
	return deepest
}

// less orders nodes by frequency, then by index (deterministic codes).
func (b *huffBuilder) less(i, j int32) bool {
	if b.nodes[i].freq != b.nodes[j].freq {
		return b.nodes[i].freq < b.nodes[j].freq
	}
	return i < j
}

func (b *huffBuilder) push(n int32) {
	b.heap = append(b.heap, n)
	for i := len(b.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if !b.less(b.heap[i], b.heap[p]) {
			break
		}
		b.heap[i], b.heap[p] = b.heap[p], b.heap[i]
		i = p
	}
}

func (b *huffBuilder) pop() int32 {
	top := b.heap[0]
	last := len(b.heap) - 1
	b.heap[0] = b.heap[last]
	b.heap = b.heap[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && b.less(b.heap[l], b.heap[m]) {
			m = l
		}
		if r < last && b.less(b.heap[r], b.heap[m]) {
			m = r
		}
		if m == i {
			return top
		}
		b.heap[i], b.heap[m] = b.heap[m], b.heap[i]
		i = m
	}
}
