package bootstrap

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	"golang.org/x/crypto/ssh"
)

// maxRevokedFileSize bounds a RevokedHostKeys file read from disk.
const maxRevokedFileSize = 16 << 20

// revokedKey reports whether file, a RevokedHostKeys file, revokes key:
// the key itself, the key a certificate certifies, or its CA's key. The
// file is either a text file of public keys, one a line, or an OpenSSH
// key revocation list (ssh-keygen -k). A file that cannot be read is an
// error, which refuses every host key, as OpenSSH does.
func revokedKey(file string, key ssh.PublicKey) (bool, error) {
	data, err := readLimited(file, maxRevokedFileSize)
	if err != nil {
		return false, err
	}
	if bytes.HasPrefix(data, []byte(krlMagic)) {
		krl, err := parseKRL(data)
		if err != nil {
			return false, err
		}
		return krl.revokes(key), nil
	}
	return revokedByList(data, key), nil
}

// revokedByList reports whether a text file of public keys (one a line,
// as in a .pub file; lines that are not keys are skipped, as OpenSSH
// skips them) holds key, the key a certificate certifies, or its CA.
func revokedByList(data []byte, key ssh.PublicKey) bool {
	suspects := keyAndCA(key)
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		k, _, _, _, err := ssh.ParseAuthorizedKey(line)
		if err != nil {
			continue
		}
		blob := plainKey(k).Marshal()
		for _, s := range suspects {
			if bytes.Equal(blob, s) {
				return true
			}
		}
	}
	return false
}

// keyAndCA returns the wire form of key (a certificate's plain key) and,
// for a certificate, of its CA's key.
func keyAndCA(key ssh.PublicKey) [][]byte {
	out := [][]byte{plainKey(key).Marshal()}
	if c, ok := key.(*ssh.Certificate); ok {
		out = append(out, plainKey(c.SignatureKey).Marshal())
	}
	return out
}

// plainKey is the key a certificate certifies, or key itself.
func plainKey(key ssh.PublicKey) ssh.PublicKey {
	if c, ok := key.(*ssh.Certificate); ok {
		return c.Key
	}
	return key
}

// An OpenSSH key revocation list (KRL), as PROTOCOL.krl in OpenSSH's
// sources describes it:
//
//	"SSHKRL\n\0"  uint32 format version (1)  uint64 KRL version
//	uint64 generated date  uint64 flags  string reserved  string comment
//	then sections, each: byte type, string data
//
// Section 1 revokes certificates of one CA (its key, or "" for every CA)
// by serial list (0x20), serial range (0x21), serial bitmap (0x22) or key
// ID (0x23); 2 lists plain key blobs; 3 and 5 their SHA-1 and SHA-256
// hashes; 255 and 0x39 are extensions, which fail the list when critical
// and unknown. Signed lists (section 4) are refused, as OpenSSH 9.4 and
// later refuse them.
const (
	krlMagic         = "SSHKRL\n\x00"
	krlFormatVersion = 1

	krlCertificates      = 1
	krlExplicitKey       = 2
	krlFingerprintSHA1   = 3
	krlSignature         = 4
	krlFingerprintSHA256 = 5
	krlExtension         = 255

	krlCertSerialList   = 0x20
	krlCertSerialRange  = 0x21
	krlCertSerialBitmap = 0x22
	krlCertKeyID        = 0x23
	krlCertExtension    = 0x39
)

// maxKRLBitmapBits bounds one serial bitmap (a bitmap covering more
// serials than this is refused rather than held).
const maxKRLBitmapBits = 1 << 27

// errKRL is a malformed revocation list.
var errKRL = errors.New("malformed key revocation list")

// krl is a parsed key revocation list.
type krl struct {
	keys   map[string]bool // plain key blobs
	sha1   map[string]bool // SHA-1 of plain key blobs
	sha256 map[string]bool // SHA-256 of plain key blobs
	certs  []krlCerts
}

// krlCerts are the revoked certificates of one CA.
type krlCerts struct {
	ca      []byte // the CA's key blob; empty for every CA
	serials []krlRange
	bitmaps []krlBitmap
	keyIDs  map[string]bool
}

type krlRange struct{ lo, hi uint64 }

type krlBitmap struct {
	offset uint64
	bits   *big.Int
}

// krlReader reads SSH wire types from a byte slice.
type krlReader struct {
	b   []byte
	err error
}

func (r *krlReader) fail() { r.err, r.b = errKRL, nil }

func (r *krlReader) u8() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *krlReader) u32() uint32 {
	if len(r.b) < 4 {
		r.fail()
		return 0
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *krlReader) u64() uint64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *krlReader) str() []byte {
	n := r.u32()
	if r.err != nil || uint64(n) > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// parseKRL parses a key revocation list.
func parseKRL(data []byte) (*krl, error) {
	r := &krlReader{b: data}
	if !bytes.HasPrefix(data, []byte(krlMagic)) {
		return nil, errKRL
	}
	r.b = r.b[len(krlMagic):]
	if v := r.u32(); r.err == nil && v != krlFormatVersion {
		return nil, fmt.Errorf("key revocation list of format %d, not %d", v, krlFormatVersion)
	}
	r.u64() // KRL version
	r.u64() // generated date
	r.u64() // flags
	r.str() // reserved
	r.str() // comment
	k := &krl{keys: map[string]bool{}, sha1: map[string]bool{}, sha256: map[string]bool{}}
	for r.err == nil && len(r.b) > 0 {
		typ := r.u8()
		if typ == krlSignature {
			return nil, errors.New("signed key revocation lists are not supported (OpenSSH refuses them too)")
		}
		body := &krlReader{b: r.str()}
		if r.err != nil {
			break
		}
		var err error
		switch typ {
		case krlCertificates:
			err = k.parseCerts(body)
		case krlExplicitKey:
			err = body.blobs(k.keys, 0)
		case krlFingerprintSHA1:
			err = body.blobs(k.sha1, sha1.Size)
		case krlFingerprintSHA256:
			err = body.blobs(k.sha256, sha256.Size)
		case krlExtension:
			err = body.extension()
		default:
			err = fmt.Errorf("key revocation list section of unknown type %d", typ)
		}
		if err != nil {
			return nil, err
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return k, nil
}

// blobs reads the strings of a key or hash section into set; size, when
// not 0, is the length each must have. A section holds at least one.
func (r *krlReader) blobs(set map[string]bool, size int) error {
	if len(r.b) == 0 {
		return errKRL
	}
	for r.err == nil && len(r.b) > 0 {
		b := r.str()
		if r.err == nil && (size != 0 && len(b) != size || len(b) == 0) {
			return errKRL
		}
		set[string(b)] = true
	}
	return r.err
}

// extension reads an extension (sub)section: unknown critical ones fail
// the list, as they must.
func (r *krlReader) extension() error {
	name := r.str()
	critical := r.u8()
	r.str()
	if r.err != nil || len(r.b) > 0 {
		return errKRL
	}
	if critical != 0 {
		return fmt.Errorf("key revocation list has a critical extension %q gosh does not know", name)
	}
	return nil
}

// parseCerts reads a certificate section.
func (k *krl) parseCerts(r *krlReader) error {
	c := krlCerts{ca: r.str(), keyIDs: map[string]bool{}}
	r.str() // reserved
	for r.err == nil && len(r.b) > 0 {
		typ := r.u8()
		sub := &krlReader{b: r.str()}
		if r.err != nil {
			break
		}
		switch typ {
		case krlCertSerialList:
			for sub.err == nil && len(sub.b) > 0 {
				s := sub.u64()
				c.serials = append(c.serials, krlRange{s, s})
			}
		case krlCertSerialRange:
			lo, hi := sub.u64(), sub.u64()
			if sub.err == nil && (lo > hi || len(sub.b) > 0) {
				return errKRL
			}
			c.serials = append(c.serials, krlRange{lo, hi})
		case krlCertSerialBitmap:
			off := sub.u64()
			mp := sub.str()
			if sub.err == nil && (len(sub.b) > 0 || len(mp) > 0 && mp[0]&0x80 != 0 || len(mp) > maxKRLBitmapBits/8) {
				return errKRL // trailing bytes, a negative or an oversized bitmap
			}
			c.bitmaps = append(c.bitmaps, krlBitmap{off, new(big.Int).SetBytes(mp)})
		case krlCertKeyID:
			if err := sub.blobs(c.keyIDs, 0); err != nil {
				return err
			}
		case krlCertExtension:
			if err := sub.extension(); err != nil {
				return err
			}
		default:
			return fmt.Errorf("key revocation list certificate section of unknown type %#x", typ)
		}
		if sub.err != nil {
			return sub.err
		}
	}
	if r.err != nil {
		return r.err
	}
	k.certs = append(k.certs, c)
	return nil
}

// revokes reports whether the list revokes key: as a certificate (by
// serial or key ID under its CA), or as a plain key (the key itself, the
// key a certificate certifies, or the certificate's CA).
func (k *krl) revokes(key ssh.PublicKey) bool {
	if c, ok := key.(*ssh.Certificate); ok && k.revokesCert(c) {
		return true
	}
	for _, blob := range keyAndCA(key) {
		h1, h256 := sha1.Sum(blob), sha256.Sum256(blob)
		if k.keys[string(blob)] || k.sha1[string(h1[:])] || k.sha256[string(h256[:])] {
			return true
		}
	}
	return false
}

func (k *krl) revokesCert(c *ssh.Certificate) bool {
	ca := c.SignatureKey.Marshal()
	for _, s := range k.certs {
		if len(s.ca) > 0 && !bytes.Equal(s.ca, ca) {
			continue
		}
		if s.keyIDs[c.KeyId] {
			return true
		}
		if c.Serial == 0 {
			continue // the serial of a CA that gives none: never revoked by serial
		}
		for _, rg := range s.serials {
			if rg.lo <= c.Serial && c.Serial <= rg.hi {
				return true
			}
		}
		for _, bm := range s.bitmaps {
			if c.Serial >= bm.offset && c.Serial-bm.offset < uint64(bm.bits.BitLen()) && bm.bits.Bit(int(c.Serial-bm.offset)) == 1 {
				return true
			}
		}
	}
	return false
}
