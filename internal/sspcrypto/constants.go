package sspcrypto

// Protocol constants: fixed by Mosh 1.4 (docs/protocol.md sections 1.4 and 2).
const (
	// KeySize is the length in bytes of a session key, which is used
	// directly as the AES-128 key.
	KeySize = 16

	// KeyTextSize is the length of a key's printable form: the standard
	// base64 encoding of its 16 bytes with the trailing "==" removed.
	KeyTextSize = 22

	// NonceSize is the length in bytes of an OCB nonce (96 bits).
	NonceSize = 12

	// TagSize is the length in bytes of an OCB authentication tag
	// (128 bits).
	TagSize = 16

	// NonceTailSize is the number of nonce bytes carried at the start of
	// every datagram: the last 8 bytes of the [Nonce]. The first 4 are
	// always zero and are not sent.
	NonceTailSize = 8

	// Overhead is the number of datagram bytes beyond the plaintext: the
	// nonce tail and the tag. A shorter datagram cannot be authentic.
	Overhead = NonceTailSize + TagSize

	// MaxSeq is the largest sequence number a [Nonce] can carry: the
	// top bit of the nonce tail holds the [Direction].
	MaxSeq = 1<<63 - 1

	// BlockLimit is the number of plaintext blocks a [Session] may seal.
	// RFC 7253 section 5 bounds one key at 2^48 blocks; Mosh uses one key
	// for both directions and so stops each side at half of that. A Seal
	// that would bring the session's total to BlockLimit is refused with
	// [ErrSeqExhausted], as mosh kills its session at that point.
	BlockLimit = 1 << 47
)

// Implementation constants.
const (
	// blockSize is the block size of the cipher OCB is built on. Only
	// 128-bit block ciphers are supported.
	blockSize = 16

	// lTableSize is the number of precomputed L_i values. L_i is used for
	// block numbers divisible by 2^i, so 64 entries cover every message
	// length a slice can hold (fewer than 2^60 blocks); a 2048-byte Mosh
	// datagram needs only L_0 to L_7.
	lTableSize = 64

	// batch is how many blocks Seal and Open whiten before passing them
	// to the block cipher one after another.
	batch = 8
)
