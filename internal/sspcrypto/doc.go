// Package sspcrypto is Mosh's session cryptography, which seals SSP's
// datagrams: AES-128 in OCB3 mode (RFC 7253) with a 96-bit nonce and a
// 128-bit tag, the 16-byte session [Key] and its 22-character text form,
// the [Nonce] built from a direction bit and a sequence number, and the
// [Session] that seals and opens whole datagrams. It is byte-for-byte
// compatible with mosh 1.4 (docs/protocol.md sections 1.4, 2 and 13). It
// is a pure package: it does no I/O, reads no clock and starts no
// goroutines.
//
// # OCB3
//
// [NewOCB] and [New] return OCB3 as a standard [crypto/cipher.AEAD]. OCB
// encrypts each 16-byte block i of the plaintext as
//
//	C_i = Offset_i ⊕ E_K(P_i ⊕ Offset_i)
//
// where Offset_0 is derived from the nonce with one extra block encryption
// and each Offset_i is Offset_{i-1} ⊕ L_{ntz(i)}, the L values being
// repeated doublings of E_K(0^128) in GF(2^128). A final partial block is xored with
// E_K(Offset_*) and the tag is E_K(Checksum ⊕ Offset ⊕ L_$) ⊕
// HASH(associated data), where Checksum is the xor of the plaintext
// blocks. So OCB costs one block-cipher call per block plus about two per
// message, a single pass with no GHASH, and the ciphertext is exactly as
// long as the plaintext. The L values are computed once per key, which
// leaves Seal and Open free of allocation and mutation: one AEAD is safe
// for concurrent use. The block cipher is crypto/aes, whose one-block
// calls use AES-NI (or the ARMv8 AES instructions) where present; Seal and
// Open whiten a batch of blocks before passing them to the cipher back to
// back, which lets the CPU overlap their rounds. Open works in dst's
// spare capacity (see [NewOCB]), so give it [TagSize] bytes of room
// beyond the plaintext, or open in place, to avoid an allocation.
//
// Mosh uses no associated data. Ciphertext and tag travel together: the
// tag is the last [TagSize] bytes of what Seal returns.
//
// # Datagrams
//
// Both directions of a session use the same key. Each datagram begins with
// the last 8 bytes of its 12-byte nonce (the first 4 are always zero), so
// it costs [Overhead] = 24 bytes beyond its plaintext:
//
//	 0                   8                               8+n        8+n+16
//	+--------------------+-------------------------------+-----------+
//	| nonce tail (8)     | ciphertext (n, same as plain) | tag (16)  |
//	+--------------------+-------------------------------+-----------+
//	 |D|  sequence number: 63 bits, big-endian  |
//	  ^ direction: 0 client→server (ToServer), 1 server→client (ToClient)
//
// The nonce tail is sent in the clear and authenticated as part of the
// nonce: changing any bit of a datagram makes [Session.Open] fail. The
// plaintext inside is the datagram layer's timestamps and transport
// fragment (package ssp). In docs/protocol.md's worked example (section 13),
// key AAECAwQFBgcICQoLDA0ODw and sequence 42 from the client give a
// 69-byte datagram starting 000000000000002a.
//
// # Security notes
//
// Nonce uniqueness. OCB loses both privacy and authenticity if a nonce is
// ever used twice with the same key. A nonce is (direction, sequence
// number), so each sender must give every datagram a new sequence number:
// Mosh keeps one counter per process, from 0, incremented for every
// datagram (every fragment) and never reset, not even across client port
// hops. [Session.Seal] takes the number from its caller and cannot detect
// reuse; it does refuse numbers above [MaxSeq], which the nonce cannot
// carry, with [ErrSeqExhausted] rather than wrap. The direction bit keeps
// the two senders' nonces apart; a receiver must still drop, after
// opening, datagrams carrying its own direction, or an attacker could
// reflect its own packets back at it.
//
// Key limits. RFC 7253 section 5 says a key should encrypt at most 2^48
// blocks (4 PiB), since OCB's guarantees degrade as s²/2^128 in the number
// of blocks s. Because both directions share the key, a [Session] (like
// mosh) stops at [BlockLimit] = 2^47 plaintext blocks, returning
// [ErrSeqExhausted]; the session must then end. Nothing else limits how
// many forgeries a receiver tries; a 128-bit tag makes that harmless.
//
// Failures. Every authentication failure is the one error [ErrOpen],
// whatever its cause, with no plaintext returned (what was written is
// zeroed); failures are expected on the network and are never fatal. Tags
// are compared in constant time. Mosh has no replay window: an authentic
// old datagram opens again, and the transport above must tolerate that.
//
// Keys. A [Key] never prints its secret through fmt; [Key.Base64] is the
// one way to get the text that MOSH_KEY and the "MOSH CONNECT" line carry.
// [ParseKey] accepts exactly what mosh-client accepts.
//
// Names. The package was internal/crypto, a name that clashed with the
// standard library's; its errors and panics still start "crypto: " and a
// Key still prints as "crypto.Key(redacted)", which is what they are about
// and what logs and tests already show.
//
// # References
//
//   - T. Krovetz and P. Rogaway, "The OCB Authenticated-Encryption
//     Algorithm", RFC 7253, 2014: the algorithm (section 4), security
//     considerations (section 5) and the sample results and iterative test
//     of Appendix A used by the tests.
//   - K. Winstein and H. Balakrishnan, "Mosh: An Interactive Remote Shell
//     for Mobile Clients", USENIX ATC 2012: SSP and its use of AES-OCB.
//   - mosh 1.4.0, src/crypto (crypto.cc, ocb_internal.cc), for the nonce
//     layout, key text form and the 2^47-block limit, as recorded in
//     docs/protocol.md sections 1.4, 2 and 13.
//   - P. Rogaway, M. Bellare, J. Black, "OCB: A Block-Cipher Mode of
//     Operation for Efficient Authenticated Encryption", ACM TISSEC 2003.
package sspcrypto
