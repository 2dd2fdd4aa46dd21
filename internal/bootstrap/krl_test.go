//go:build unix

package bootstrap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// TestKRL builds key revocation lists with ssh-keygen -k from every kind
// of specification and checks the parser's verdict on a set of keys and
// certificates against ssh-keygen -Q's on the same list.
func TestKRL(t *testing.T) {
	needTools(t, "ssh-keygen")
	dir := t.TempDir()
	ca, otherCA := filepath.Join(dir, "ca"), filepath.Join(dir, "other_ca")
	keygen(t, "ed25519", ca, "")
	keygen(t, "ecdsa", otherCA, "")
	type subject struct {
		name string
		path string // public key or certificate file
	}
	var subjects []subject
	plain := map[string]string{}
	for i, typ := range []string{"ed25519", "ecdsa", "rsa", "ed25519", "ed25519", "ed25519"} {
		k := filepath.Join(dir, "k"+strconv.Itoa(i))
		keygen(t, typ, k, "")
		plain["k"+strconv.Itoa(i)] = k + ".pub"
		subjects = append(subjects, subject{"k" + strconv.Itoa(i), k + ".pub"})
	}
	// Certificates: serials 0 (none), 5, 7, 130, 1000, and one by the other CA.
	certify := func(name, key, signer string, serial int, id string) {
		certDir := filepath.Join(dir, name)
		os.MkdirAll(certDir, 0o700)
		pub := filepath.Join(certDir, "key.pub")
		writeFile(t, pub, mustRead(t, key))
		if out, err := exec.Command("ssh-keygen", "-q", "-s", signer, "-I", id, "-h", "-n", "web", "-z", strconv.Itoa(serial), pub).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen -s: %v\n%s", err, out)
		}
		subjects = append(subjects, subject{name, filepath.Join(certDir, "key-cert.pub")})
	}
	certify("c0", plain["k0"], ca, 0, "zero")
	certify("c5", plain["k1"], ca, 5, "five")
	certify("c7", plain["k2"], ca, 7, "seven")
	certify("c130", plain["k3"], ca, 130, "one-thirty")
	certify("c1000", plain["k4"], ca, 1000, "thousand")
	certify("other5", plain["k5"], otherCA, 5, "five")

	specs := map[string]string{
		"serial":        "serial: 5\n",
		"serial range":  "serial: 6-129\n",
		"serial bitmap": "serial: 1\nserial: 3\nserial: 130\nserial: 132\nserial: 134\nserial: 136\n",
		"serial many":   "serial: 1000\nserial: 5\nserial: 7-8\nserial: 0x10\n",
		"key id":        "id: five\nid: zero\n",
		"key":           "key: " + mustRead(t, plain["k1"]),
		"sha1":          "sha1: " + mustRead(t, plain["k2"]),
		"sha256":        "sha256: " + mustRead(t, plain["k3"]),
		"certificate":   "key: " + mustRead(t, filepath.Join(dir, "c1000", "key-cert.pub")),
		"the CA":        "key: " + mustRead(t, ca+".pub"),
	}
	fp := func(path string) string {
		out, err := exec.Command("ssh-keygen", "-l", "-f", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(out))[1]
	}
	specs["hash"] = "hash: " + fp(plain["k4"]) + "\n"

	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			specFile := filepath.Join(t.TempDir(), "spec")
			writeFile(t, specFile, spec)
			list := filepath.Join(t.TempDir(), "krl")
			writeKRL(t, list, ca+".pub", specFile)
			data, err := os.ReadFile(list)
			if err != nil {
				t.Fatal(err)
			}
			k, err := parseKRL(data)
			if err != nil {
				t.Fatalf("parseKRL: %v", err)
			}
			revokedSome := false
			for _, s := range subjects {
				key := readPublicKey(t, s.path)
				// ssh-keygen -Q exits non-zero when the key is revoked.
				want := exec.Command("ssh-keygen", "-Q", "-f", list, s.path).Run() != nil
				if got := k.revokes(key); got != want {
					t.Errorf("%s: revoked = %v, ssh-keygen -Q says %v", s.name, got, want)
				}
				if got, err := revokedKey(list, key); err != nil || got != k.revokes(key) {
					t.Errorf("%s: revokedKey = %v, %v", s.name, got, err)
				}
				revokedSome = revokedSome || k.revokes(key)
			}
			if !revokedSome {
				t.Errorf("the list revokes none of the keys")
			}
		})
	}
}

// TestKRLRefused: lists gosh cannot read whole are errors, so that
// RevokedHostKeys refuses every host rather than none.
func TestKRLRefused(t *testing.T) {
	header := krlHeader()
	for name, data := range map[string][]byte{
		"truncated header":   header[:20],
		"format 2":           append(append([]byte(krlMagic), 0, 0, 0, 2), header[12:]...),
		"signed":             append(header, krlSignature, 0, 0, 0, 0),
		"unknown section":    append(header, 9, 0, 0, 0, 0),
		"critical extension": append(header, krlSection(krlExtension, krlString("x@example.org"), []byte{1}, krlString(""))...),
		"section too long":   append(header, krlExplicitKey, 0, 0, 1, 0, 1),
		"empty key section":  append(header, krlSection(krlExplicitKey)...),
		"short hash":         append(header, krlSection(krlFingerprintSHA256, krlString("abc"))...),
		"bad range":          append(header, krlSection(krlCertificates, krlString("ca"), krlString(""), []byte{krlCertSerialRange}, krlString(string(u64(9))+string(u64(2))))...),
		"negative bitmap":    append(header, krlSection(krlCertificates, krlString("ca"), krlString(""), []byte{krlCertSerialBitmap}, krlString(string(u64(0))+string(krlString("\x80"))))...),
	} {
		if _, err := parseKRL(data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if _, err := parseKRL(append(header, krlSection(krlExtension, krlString("x@example.org"), []byte{0}, krlString("y"))...)); err != nil {
		t.Errorf("a non-critical extension: %v", err)
	}
	// A text file is a list of keys; an unreadable one refuses.
	if _, err := revokedKey(filepath.Join(t.TempDir(), "missing"), testPublicKey(t)); err == nil {
		t.Error("revokedKey of a missing file: no error")
	}
}

func testPublicKey(t *testing.T) ssh.PublicKey {
	t.Helper()
	k := filepath.Join(t.TempDir(), "k")
	keygen(t, "ed25519", k, "")
	return readPublicKey(t, k+".pub")
}
