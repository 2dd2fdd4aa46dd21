package bootstrap

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/ssh"
)

// A release's checksums.txt is signed with an SSH signature, as
// "ssh-keygen -Y sign -n gosh-release" makes it (OpenSSH's sshsig format,
// PROTOCOL.sshsig): an armored blob naming the key, a namespace, the hash
// of the message and the key's signature over those. SSH signatures were
// chosen over minisign and cosign because the verifier is small and its
// parts are already a dependency (golang.org/x/crypto/ssh parses the key
// and checks the signature), the signing tool is ssh-keygen, which every
// release machine has, and anyone can check a release by hand with
// ssh-keygen -Y verify (docs/release.md).

// releaseNamespace is the namespace of a release's signature: a signature
// the same key made for anything else (-n file, -n git) is refused.
const releaseNamespace = "gosh-release"

// Bounds of a signature.
const (
	maxSignature = 64 << 10 // the armored file
	sigMagic     = "SSHSIG"
	sigVersion   = 1
	armorBegin   = "-----BEGIN SSH SIGNATURE-----"
	armorEnd     = "-----END SSH SIGNATURE-----"
)

// sshSignature is a parsed SSH signature.
type sshSignature struct {
	key       ssh.PublicKey
	namespace string
	reserved  []byte
	hash      string // "sha256" or "sha512"
	sig       *ssh.Signature
}

// errNotSignature is an input that is not an armored SSH signature.
var errNotSignature = errors.New("not an SSH signature (ssh-keygen -Y sign)")

// parseSSHSignature parses an armored SSH signature: the BEGIN line,
// base64 lines, the END line.
func parseSSHSignature(armored []byte) (*sshSignature, error) {
	if len(armored) > maxSignature {
		return nil, errNotSignature
	}
	body, ok := bytes.CutPrefix(bytes.TrimSpace(armored), []byte(armorBegin))
	if !ok {
		return nil, errNotSignature
	}
	body, ok = bytes.CutSuffix(body, []byte(armorEnd))
	if !ok {
		return nil, errNotSignature
	}
	b64 := bytes.Join(bytes.Fields(body), nil)
	blob := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	n, err := base64.StdEncoding.Decode(blob, b64)
	if err != nil {
		return nil, errNotSignature
	}
	return parseSigBlob(blob[:n])
}

// parseSigBlob parses the blob of an SSH signature: the magic, the
// version, then the public key, the namespace, the reserved field, the
// hash algorithm and the signature, each a string, and nothing after.
func parseSigBlob(blob []byte) (*sshSignature, error) {
	rest, ok := bytes.CutPrefix(blob, []byte(sigMagic))
	if !ok || len(rest) < 4 {
		return nil, errNotSignature
	}
	if v := binary.BigEndian.Uint32(rest); v != sigVersion {
		return nil, fmt.Errorf("an SSH signature of version %d (want %d)", v, sigVersion)
	}
	rest = rest[4:]
	var fields [5][]byte
	for i := range fields {
		if fields[i], rest, ok = sshString(rest); !ok {
			return nil, errNotSignature
		}
	}
	if len(rest) != 0 {
		return nil, errNotSignature
	}
	key, err := ssh.ParsePublicKey(fields[0])
	if err != nil {
		return nil, fmt.Errorf("an SSH signature with a bad key: %w", err)
	}
	s := &sshSignature{key: key, namespace: string(fields[1]), reserved: fields[2], hash: string(fields[3])}
	format, r, ok := sshString(fields[4])
	if !ok {
		return nil, errNotSignature
	}
	sigBlob, r, ok := sshString(r)
	if !ok {
		return nil, errNotSignature
	}
	// What follows is the rest of a security key's signature (flags and
	// counter); ssh.PublicKey.Verify checks it.
	s.sig = &ssh.Signature{Format: string(format), Blob: sigBlob, Rest: r}
	return s, nil
}

// sshString splits an SSH string (a 4-byte big-endian length and the
// bytes) off the front of b.
func sshString(b []byte) (s, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}

// appendSSHString appends s as an SSH string.
func appendSSHString(dst, s []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

// verify checks that s is a signature of message in namespace by one of
// trusted; the error is one line saying what does not hold.
func (s *sshSignature) verify(message []byte, namespace string, trusted []ssh.PublicKey) error {
	if s.namespace != namespace {
		return fmt.Errorf("the signature is for %.40q, not %q", s.namespace, namespace)
	}
	if !trustedKey(s.key, trusted) {
		return fmt.Errorf("the signature is by key %s, which gosh does not trust for releases", ssh.FingerprintSHA256(s.key))
	}
	var digest []byte
	switch s.hash {
	case "sha256":
		h := sha256.Sum256(message)
		digest = h[:]
	case "sha512":
		h := sha512.Sum512(message)
		digest = h[:]
	default:
		return fmt.Errorf("the signature uses hash %.20q (want sha256 or sha512)", s.hash)
	}
	signed := []byte(sigMagic)
	signed = appendSSHString(signed, []byte(s.namespace))
	signed = appendSSHString(signed, s.reserved)
	signed = appendSSHString(signed, []byte(s.hash))
	signed = appendSSHString(signed, digest)
	if err := s.key.Verify(signed, s.sig); err != nil {
		return errors.New("the signature does not match: the file was changed after it was signed")
	}
	return nil
}

// trustedKey reports whether k is one of trusted.
func trustedKey(k ssh.PublicKey, trusted []ssh.PublicKey) bool {
	m := k.Marshal()
	for _, t := range trusted {
		if bytes.Equal(t.Marshal(), m) {
			return true
		}
	}
	return false
}

// parseKeys parses public keys in authorized_keys form, one a line;
// blank lines and # comments are skipped. It fails on a line that is not
// a key, and on no key at all.
func parseKeys(text []byte) ([]ssh.PublicKey, error) {
	var keys []ssh.PublicKey
	for line := range bytes.Lines(text) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, _, _, _, err := ssh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("bad release key: %w", err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("no release key")
	}
	return keys, nil
}
