package bootstrap

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// The fixtures in testdata/sshsig were made with OpenSSH's ssh-keygen -Y
// sign and the test key (testdata/release-test-key): checksums.txt.sig
// (sha512, its default), sha256.sig (-O hashalg=sha256),
// namespace-file.sig (-n file) and other-key.sig (another key).

func readSigFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sshsig", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// releaseTestKeys are the test key's public half, in authorized_keys form.
func releaseTestKeys(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "release-test-key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestVerifyChecksums(t *testing.T) {
	keys, err := parseKeys([]byte(releaseTestKeys(t)))
	if err != nil {
		t.Fatal(err)
	}
	sums := readSigFixture(t, "checksums.txt")
	changed := bytes.Replace(sums, []byte("arm64"), []byte("arm65"), 1)
	tests := []struct {
		name string
		sums []byte
		sig  []byte
		keys []ssh.PublicKey
		want string // "" for a good signature
	}{
		{"sha512", sums, readSigFixture(t, "checksums.txt.sig"), keys, ""},
		{"sha256", sums, readSigFixture(t, "sha256.sig"), keys, ""},
		{"changed checksums", changed, readSigFixture(t, "checksums.txt.sig"), keys,
			"checksums.txt: checksums.txt.sig does not vouch for it: the signature does not match: the file was changed after it was signed"},
		{"another namespace", sums, readSigFixture(t, "namespace-file.sig"), keys, `the signature is for "file", not "gosh-release"`},
		{"another key", sums, readSigFixture(t, "other-key.sig"), keys, "which gosh does not trust for releases"},
		{"the release key", sums, readSigFixture(t, "checksums.txt.sig"), nil, "which gosh does not trust for releases"},
		{"not a signature", sums, []byte("hello\n"), keys, "not an SSH signature"},
		{"empty", sums, nil, keys, "not an SSH signature"},
	}
	release, err := parseKeys([]byte(releaseKeys))
	if err != nil || len(release) == 0 {
		t.Fatalf("the built-in release key: %v", err)
	}
	for _, tc := range tests {
		k := tc.keys
		if k == nil {
			k = release
		}
		err := verifyChecksums(tc.sums, tc.sig, k)
		if (tc.want == "" && err != nil) || (tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want))) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestParseSSHSignatureBlobs: a signature's blob altered anywhere is
// refused, never accepted and never a panic.
func TestParseSSHSignatureBlobs(t *testing.T) {
	keys, _ := parseKeys([]byte(releaseTestKeys(t)))
	sums := readSigFixture(t, "checksums.txt")
	sig := readSigFixture(t, "checksums.txt.sig")
	blob := sigBlob(t, sig)
	for i := range blob {
		for _, bit := range []byte{1, 0x80} {
			b := bytes.Clone(blob)
			b[i] ^= bit
			if s, err := parseSigBlob(b); err == nil && s.verify(sums, releaseNamespace, keys) == nil {
				t.Fatalf("blob with byte %d ^ %#x verifies", i, bit)
			}
		}
	}
	for n := range len(blob) {
		if s, err := parseSigBlob(blob[:n]); err == nil && s.verify(sums, releaseNamespace, keys) == nil {
			t.Fatalf("blob cut to %d bytes verifies", n)
		}
	}
	if _, err := parseSigBlob(append(bytes.Clone(blob), 0)); err == nil {
		t.Error("a blob with a byte after the signature parses")
	}
}

// sigBlob decodes an armored signature's blob.
func sigBlob(t testing.TB, armored []byte) []byte {
	t.Helper()
	body := strings.TrimSpace(string(armored))
	body = strings.TrimPrefix(body, armorBegin)
	body = strings.TrimSuffix(body, armorEnd)
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseKeys(t *testing.T) {
	keys, err := parseKeys([]byte(releaseKeys))
	if err != nil || len(keys) != 1 || keys[0].Type() != ssh.KeyAlgoED25519 {
		t.Errorf("release_key.pub: %v, %v; want one Ed25519 key", keys, err)
	}
	test, _ := parseKeys([]byte(releaseTestKeys(t)))
	if trustedKey(test[0], keys) {
		t.Error("the test key is the release key")
	}
	for _, bad := range []string{"", "# only a comment\n", "ssh-ed25519 AAAA-not-base64\n", "hello\n"} {
		if k, err := parseKeys([]byte(bad)); err == nil {
			t.Errorf("parseKeys(%q) = %v, want an error", bad, k)
		}
	}
}

// FuzzVerifyChecksums parses and checks arbitrary signatures: no panic,
// and nothing but a real signature of the checksums by the key verifies.
func FuzzVerifyChecksums(f *testing.F) {
	keys, err := parseKeys([]byte(releaseTestKeys(f)))
	if err != nil {
		f.Fatal(err)
	}
	sums := readSigFixture(f, "checksums.txt")
	good := readSigFixture(f, "checksums.txt.sig")
	for _, n := range []string{"checksums.txt.sig", "sha256.sig", "namespace-file.sig", "other-key.sig"} {
		f.Add(readSigFixture(f, n), false)
		f.Add(sigBlob(f, readSigFixture(f, n)), true)
	}
	f.Add([]byte(armorBegin+"\n"+armorEnd), false)
	f.Add([]byte("SSHSIG\x00\x00\x00\x01"), true)
	f.Fuzz(func(t *testing.T, in []byte, raw bool) {
		var s *sshSignature
		var err error
		if raw {
			s, err = parseSigBlob(in)
		} else {
			s, err = parseSSHSignature(in)
		}
		if err != nil {
			return
		}
		if s.verify(sums, releaseNamespace, keys) == nil {
			// Only the two real signatures of sums can verify (ed25519
			// signatures are deterministic).
			ok := bytes.Equal(s.sig.Blob, mustParse(t, good).sig.Blob) ||
				bytes.Equal(s.sig.Blob, mustParse(t, readSigFixture(t, "sha256.sig")).sig.Blob)
			if !ok {
				t.Fatalf("a signature that is not the key's verifies: %q", in)
			}
		}
	})
}

func mustParse(t testing.TB, armored []byte) *sshSignature {
	s, err := parseSSHSignature(armored)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
