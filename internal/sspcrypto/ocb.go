package sspcrypto

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"math/bits"
)

// ErrOpen is the one error returned for a message that fails
// authentication, whatever the reason: a wrong key, nonce, tag, associated
// data, a modified or truncated ciphertext, or (from [Session.Open]) a
// datagram too short to hold a nonce tail and a tag.
var ErrOpen = errors.New("crypto: message authentication failed")

var (
	errBlockSize = errors.New("crypto: OCB requires a cipher with 16-byte blocks")
	errKeySize   = errors.New("crypto: AES-128-OCB key must be 16 bytes")
)

// ocb is OCB3 (RFC 7253) with a 96-bit nonce and a 128-bit tag over a
// 128-bit block cipher. All fields are set by newOCB and never written
// again, so an ocb is safe for concurrent use when its block cipher is.
type ocb struct {
	block   cipher.Block
	lStar   block128             // L_* = E_K(0^128)
	lDollar block128             // L_$ = double(L_*)
	l       [lTableSize]block128 // L_i = double^(i+1)(L_$)
}

// NewOCB returns OCB3 (RFC 7253) over block, which must have 16-byte
// blocks, as a [cipher.AEAD] with a [NonceSize]-byte nonce and a
// [TagSize]-byte tag.
//
// Like the AEADs in the standard library, its Seal and Open append to dst,
// panic when the nonce has the wrong length or when the output would
// overlap the input other than exactly, return [ErrOpen] for every
// authentication failure and wipe the output they wrote when they fail.
// Neither allocates when dst has room for the result; Open also uses
// [TagSize] bytes of dst's spare capacity beyond the plaintext as scratch
// space (the cipher.AEAD contract allows Open to overwrite dst up to its
// capacity), so to open without allocating give dst that much room, or
// decrypt in place with ciphertext[:0].
//
// The result is safe for concurrent use if block is, as the block ciphers
// of crypto/aes are. A nonce must never be used twice with the same key:
// see the package documentation.
func NewOCB(block cipher.Block) (cipher.AEAD, error) {
	o, err := newOCB(block)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// New returns AES-128-OCB for the 16-byte key, as described at [NewOCB].
func New(key []byte) (cipher.AEAD, error) {
	o, err := newAESOCB(key)
	if err != nil {
		return nil, err
	}
	return o, nil
}

func newAESOCB(key []byte) (*ocb, error) {
	if len(key) != KeySize {
		return nil, errKeySize
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return newOCB(block)
}

// newOCB precomputes the key-dependent values of RFC 7253 section 4.1.
func newOCB(block cipher.Block) (*ocb, error) {
	if block == nil || block.BlockSize() != blockSize {
		return nil, errBlockSize
	}
	o := &ocb{block: block}
	var zero [blockSize]byte
	block.Encrypt(zero[:], zero[:])
	o.lStar = load(zero[:])
	o.lDollar = o.lStar.double()
	l := o.lDollar.double()
	for i := range o.l {
		o.l[i] = l
		l = l.double()
	}
	return o, nil
}

// NonceSize returns [NonceSize].
func (o *ocb) NonceSize() int { return NonceSize }

// Overhead returns [TagSize].
func (o *ocb) Overhead() int { return TagSize }

// Seal encrypts and authenticates plaintext, authenticates additionalData
// and appends the ciphertext and tag to dst.
func (o *ocb) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	if len(nonce) != NonceSize {
		panic("crypto: incorrect nonce length given to OCB")
	}
	ret, out := sliceForAppend(dst, len(plaintext)+TagSize)
	if inexactOverlap(out, plaintext) {
		panic("crypto: invalid buffer overlap")
	}
	o.seal(out, nonce, plaintext, additionalData)
	return ret
}

// Open authenticates ciphertext (which ends with the tag) and
// additionalData and appends the plaintext to dst. On failure it returns
// nil and [ErrOpen], and zeroes what it wrote into dst's capacity.
func (o *ocb) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	if len(nonce) != NonceSize {
		panic("crypto: incorrect nonce length given to OCB")
	}
	if len(ciphertext) < TagSize {
		return nil, ErrOpen
	}
	n := len(ciphertext) - TagSize
	// out is the plaintext followed by TagSize bytes of scratch space.
	ret, out := sliceForAppend(dst, n+TagSize)
	if inexactOverlap(out, ciphertext) {
		panic("crypto: invalid buffer overlap")
	}
	// Read the tag before anything is written: when decrypting in place
	// the scratch space is where the tag is.
	var tag [TagSize]byte
	copy(tag[:], ciphertext[n:])
	o.open(out, nonce, ciphertext[:n], additionalData)
	if subtle.ConstantTimeCompare(out[n:], tag[:]) != 1 {
		clear(out)
		return nil, ErrOpen
	}
	return ret[:len(ret)-TagSize], nil
}

// seal writes the ciphertext of plaintext and then the tag into out, which
// is len(plaintext)+TagSize bytes long and may start where plaintext does.
// The tag's place in out serves as scratch space until the tag is written.
func (o *ocb) seal(out, nonce, plaintext, ad []byte) {
	n := len(plaintext)
	scratch := out[n : n+TagSize]
	full := n &^ (blockSize - 1)
	offset, checksum := o.sealBlocks(out[:full], plaintext[:full], o.initialOffset(nonce, scratch))
	if rest := plaintext[full:]; len(rest) > 0 {
		// Read the final partial block before it may be overwritten.
		checksum = checksum.xor(padBlock(rest))
		offset = offset.xor(o.lStar)
		xorPartial(out[full:n], rest, o.encrypt(scratch, offset))
	}
	o.tag(scratch, checksum, offset, ad)
}

// open writes the plaintext of ciphertext (without its tag) and then the
// tag it should have had into out, which is len(ciphertext)+TagSize bytes
// long and may start where ciphertext does. As in seal, the tag's place is
// scratch space until the end.
func (o *ocb) open(out, nonce, ciphertext, ad []byte) {
	n := len(ciphertext)
	scratch := out[n : n+TagSize]
	full := n &^ (blockSize - 1)
	offset, checksum := o.openBlocks(out[:full], ciphertext[:full], o.initialOffset(nonce, scratch))
	if rest := ciphertext[full:]; len(rest) > 0 {
		offset = offset.xor(o.lStar)
		xorPartial(out[full:n], rest, o.encrypt(scratch, offset))
		checksum = checksum.xor(padBlock(out[full:n]))
	}
	o.tag(scratch, checksum, offset, ad)
}

// sealBlocks encrypts the whole blocks of src into dst (the same length,
// and either the same memory or none of it) starting from Offset_0 and
// returns the last offset and the checksum of src.
//
// The blocks are whitened a batch at a time and then passed to the cipher
// one after another, with no dependent work in between, so that the CPU
// can overlap their AES rounds; that doubles the speed of crypto/aes's
// one-block-at-a-time interface.
func (o *ocb) sealBlocks(dst, src []byte, offset block128) (last, checksum block128) {
	var offsets [batch]block128
	for i := uint(0); len(src) > 0; {
		k := min(batch, len(src)/blockSize)
		for j := range k {
			i++
			offset = offset.xor(o.l[bits.TrailingZeros(i)&(lTableSize-1)])
			offsets[j] = offset
			p := load(src[j*blockSize:])
			checksum = checksum.xor(p)
			p.xor(offset).store(dst[j*blockSize:])
		}
		for j := range k {
			b := dst[j*blockSize : (j+1)*blockSize]
			o.block.Encrypt(b, b)
		}
		for j := range k {
			offsets[j].xorInto(dst[j*blockSize:])
		}
		src, dst = src[k*blockSize:], dst[k*blockSize:]
	}
	return offset, checksum
}

// openBlocks is the inverse of sealBlocks; the checksum is that of dst.
func (o *ocb) openBlocks(dst, src []byte, offset block128) (last, checksum block128) {
	var offsets [batch]block128
	for i := uint(0); len(src) > 0; {
		k := min(batch, len(src)/blockSize)
		for j := range k {
			i++
			offset = offset.xor(o.l[bits.TrailingZeros(i)&(lTableSize-1)])
			offsets[j] = offset
			load(src[j*blockSize:]).xor(offset).store(dst[j*blockSize:])
		}
		for j := range k {
			b := dst[j*blockSize : (j+1)*blockSize]
			o.block.Decrypt(b, b)
		}
		for j := range k {
			p := load(dst[j*blockSize:]).xor(offsets[j])
			p.store(dst[j*blockSize:])
			checksum = checksum.xor(p)
		}
		src, dst = src[k*blockSize:], dst[k*blockSize:]
	}
	return offset, checksum
}

// initialOffset returns Offset_0 for nonce (RFC 7253 section 4.2), using
// scratch for the one block encryption it needs.
func (o *ocb) initialOffset(nonce, scratch []byte) block128 {
	// The nonce block is num2str(TAGLEN mod 128, 7) || 0^24 || 1 || N,
	// which for a 128-bit tag and 96-bit N is 00 00 00 01 || N.
	_ = nonce[11]
	hi := 1<<32 | uint64(binary.BigEndian.Uint32(nonce))
	lo := binary.BigEndian.Uint64(nonce[4:])
	bottom := uint(lo & 63)
	ktop := o.encrypt(scratch, fromBE(hi, lo&^63))
	// Stretch = Ktop || (Ktop[1..64] xor Ktop[9..72]); Offset_0 is the
	// 128 bits of Stretch starting at bit bottom.
	khi, klo := ktop.be()
	return ktop.stretchShift(bottom, khi^(khi<<8|klo>>56))
}

// tag writes the tag for a message with the given final checksum and
// offset, and associated data ad, into scratch.
func (o *ocb) tag(scratch []byte, checksum, offset block128, ad []byte) {
	h := o.hash(ad, scratch)
	o.encrypt(scratch, checksum.xor(offset).xor(o.lDollar))
	h.xorInto(scratch)
}

// hash is the HASH function of RFC 7253 section 4.1 over the associated
// data ad, using scratch for block encryptions.
func (o *ocb) hash(ad, scratch []byte) block128 {
	var sum, offset block128
	full := len(ad) / blockSize
	for i := range full {
		offset = offset.xor(o.l[bits.TrailingZeros(uint(i+1))])
		sum = sum.xor(o.encrypt(scratch, load(ad[i*blockSize:]).xor(offset)))
	}
	if rest := ad[full*blockSize:]; len(rest) > 0 {
		offset = offset.xor(o.lStar)
		sum = sum.xor(o.encrypt(scratch, padBlock(rest).xor(offset)))
	}
	return sum
}

// encrypt returns E_K(x), computed in the 16-byte scratch. The block is
// encrypted in caller-owned memory rather than a local array because a
// local passed to an interface method escapes to the heap.
func (o *ocb) encrypt(scratch []byte, x block128) block128 {
	x.store(scratch)
	o.block.Encrypt(scratch, scratch)
	return load(scratch)
}

// xorPartial sets dst to src ⊕ the first len(src) bytes of pad, for
// len(src) < 16. dst and src may be the same slice.
func xorPartial(dst, src []byte, pad block128) {
	var p [blockSize]byte
	pad.store(p[:])
	for i, b := range src {
		dst[i] = b ^ p[i]
	}
}
