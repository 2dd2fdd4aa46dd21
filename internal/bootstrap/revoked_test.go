package bootstrap

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"math/big"
	"testing"

	"golang.org/x/crypto/ssh"
)

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func krlString(s string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
}

// krlSection is a section of type typ holding the concatenated parts.
func krlSection(typ byte, parts ...[]byte) []byte {
	var body []byte
	for _, p := range parts {
		body = append(body, p...)
	}
	return append([]byte{typ}, krlString(string(body))...)
}

// krlHeader is a version 1 header with no comment.
func krlHeader() []byte {
	b := append([]byte(krlMagic), 0, 0, 0, krlFormatVersion)
	b = append(b, u64(1)...) // KRL version
	b = append(b, u64(0)...) // date
	b = append(b, u64(0)...) // flags
	b = append(b, krlString("")...)
	return append(b, krlString("comment")...)
}

// testKeys returns a deterministic plain key, CA and certificate for the
// parser tests, without ssh-keygen.
func testKeys(t testing.TB) (key, ca ssh.PublicKey, cert *ssh.Certificate) {
	t.Helper()
	pub := func(seed byte) (ssh.PublicKey, ssh.Signer) {
		priv := ed25519.NewKeyFromSeed(append(make([]byte, 31), seed))
		s, err := ssh.NewSignerFromKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		return s.PublicKey(), s
	}
	key, _ = pub(1)
	ca, caSigner := pub(2)
	cert = &ssh.Certificate{Key: key, Serial: 77, CertType: ssh.HostCert, KeyId: "web-1", ValidBefore: ssh.CertTimeInfinity}
	if err := cert.SignCert(rand.Reader, caSigner); err != nil {
		t.Fatal(err)
	}
	return key, ca, cert
}

// TestKRLSections checks each way a list revokes, on hand-built lists.
func TestKRLSections(t *testing.T) {
	key, ca, cert := testKeys(t)
	h := sha256.Sum256(key.Marshal())
	bitmap := new(big.Int).SetBit(new(big.Int), 77-64, 1).Bytes()
	caSection := func(sub ...[]byte) []byte {
		return krlSection(krlCertificates, append([][]byte{krlString(string(ca.Marshal())), krlString("")}, sub...)...)
	}
	tests := []struct {
		name            string
		sections        []byte
		keyOut, certOut bool
	}{
		{name: "empty"},
		{name: "explicit key", sections: krlSection(krlExplicitKey, krlString(string(key.Marshal()))), keyOut: true, certOut: true},
		{name: "the CA", sections: krlSection(krlExplicitKey, krlString(string(ca.Marshal()))), certOut: true},
		{name: "sha256", sections: krlSection(krlFingerprintSHA256, krlString(string(h[:]))), keyOut: true, certOut: true},
		{name: "serial", sections: caSection([]byte{krlCertSerialList}, krlString(string(u64(76))+string(u64(77)))), certOut: true},
		{name: "range", sections: caSection([]byte{krlCertSerialRange}, krlString(string(u64(70))+string(u64(80)))), certOut: true},
		{name: "range below", sections: caSection([]byte{krlCertSerialRange}, krlString(string(u64(70))+string(u64(76))))},
		{name: "bitmap", sections: caSection([]byte{krlCertSerialBitmap}, krlString(string(u64(64))+string(krlString(string(bitmap))))), certOut: true},
		{name: "bitmap elsewhere", sections: caSection([]byte{krlCertSerialBitmap}, krlString(string(u64(65))+string(krlString(string(bitmap)))))},
		{name: "key id", sections: caSection([]byte{krlCertKeyID}, krlString(string(krlString("web-1")))), certOut: true},
		{name: "key id of any CA", sections: krlSection(krlCertificates, krlString(""), krlString(""), []byte{krlCertKeyID}, krlString(string(krlString("web-1")))), certOut: true},
		{name: "another CA's serial", sections: krlSection(krlCertificates, krlString(string(key.Marshal())), krlString(""), []byte{krlCertSerialList}, krlString(string(u64(77))))},
	}
	for _, tc := range tests {
		k, err := parseKRL(append(krlHeader(), tc.sections...))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := k.revokes(key); got != tc.keyOut {
			t.Errorf("%s: key revoked = %v, want %v", tc.name, got, tc.keyOut)
		}
		if got := k.revokes(cert); got != tc.certOut {
			t.Errorf("%s: certificate revoked = %v, want %v", tc.name, got, tc.certOut)
		}
	}
}

func TestRevokedByList(t *testing.T) {
	key, ca, cert := testKeys(t)
	line := func(k ssh.PublicKey) string { return string(ssh.MarshalAuthorizedKey(k)) }
	for _, tc := range []struct {
		list            string
		keyOut, certOut bool
	}{
		{list: "# nothing\n\nnot a key\n"},
		{list: "# a key\n" + line(key), keyOut: true, certOut: true},
		{list: line(ca), certOut: true},
		{list: "junk\r\n" + line(cert), keyOut: true, certOut: true}, // a certificate revokes its key
	} {
		if got := revokedByList([]byte(tc.list), key); got != tc.keyOut {
			t.Errorf("%q: key revoked = %v", tc.list, got)
		}
		if got := revokedByList([]byte(tc.list), cert); got != tc.certOut {
			t.Errorf("%q: certificate revoked = %v", tc.list, got)
		}
	}
}

// FuzzKRL: no list crashes or hangs the parser, and one it accepts
// answers for any key.
func FuzzKRL(f *testing.F) {
	key, ca, _ := testKeys(f)
	h := krlHeader()
	f.Add(h)
	f.Add(append(h, krlSection(krlExplicitKey, krlString(string(key.Marshal())))...))
	f.Add(append(h, krlSection(krlCertificates, krlString(string(ca.Marshal())), krlString(""),
		[]byte{krlCertSerialList}, krlString(string(u64(5))), []byte{krlCertSerialBitmap}, krlString(string(u64(0))+string(krlString("\x05"))),
		[]byte{krlCertKeyID}, krlString(string(krlString("id"))))...))
	f.Add(append(h, krlSection(krlExtension, krlString("x"), []byte{0}, krlString(""))...))
	_, _, cert := testKeys(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := parseKRL(data)
		if err != nil {
			return
		}
		k.revokes(key)
		k.revokes(cert)
	})
}
