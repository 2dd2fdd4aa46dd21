package bootstrap

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func newHostKey(t *testing.T) ssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestKnownHostsBadLine: a line gosh cannot parse (a newer key type, a
// typo) is skipped with one warning naming file and line, as OpenSSH does,
// and the rest of the file still counts: the known key is accepted, a
// changed one refused with the right line numbers.
func TestKnownHostsBadLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "known_hosts")
	good, other := newHostKey(t), newHostKey(t)
	content := "other.example ssh-futurekey AAAAE2Z1dHVyZQ==\n" + // unknown key type
		"typo.example ssh-ed25519 !!!notbase64\n" +
		"|1|bad|hash ssh-ed25519 " + strings.Fields(knownhosts.Line([]string{"x"}, good))[2] + "\n" +
		knownhosts.Line([]string{"[host.example]:2222"}, good) + "\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	h := &hostKeyChecker{userFiles: []string{file}, strict: "yes", stderr: &warn}
	for range 2 {
		if err := h.check("host.example:2222", zeroAddr{}, good); err != nil {
			t.Fatalf("check of the known key: %v", err)
		}
	}
	var mismatch *HostKeyMismatchError
	if err := h.check("host.example:2222", zeroAddr{}, other); !errors.As(err, &mismatch) || len(mismatch.Known) != 1 || mismatch.Known[0] != file+":4" {
		t.Errorf("check of a changed key = %v, want a mismatch naming %s:4", err, file)
	}
	lines := strings.Split(strings.TrimSpace(warn.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("warnings:\n%s\nwant one for each of the 3 bad lines, once", warn.String())
	}
	for i, l := range lines {
		if !strings.Contains(l, file+":"+string(rune('1'+i))) {
			t.Errorf("warning %q does not name %s:%d", l, file, i+1)
		}
	}
}

// TestKnownHostsCertAuthority: a @cert-authority line is not one of the
// host's keys: a plain key of the CA's type is unknown, not changed, and
// the line is not offered for host key ordering.
func TestKnownHostsCertAuthority(t *testing.T) {
	file := filepath.Join(t.TempDir(), "known_hosts")
	ca, hostKey, known := newHostKey(t), newHostKey(t), newHostKey(t)
	content := "@cert-authority web " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(ca))) + "\n" +
		"mail " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(known))) + "\n" +
		"@cert-authority mail " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(ca))) + "\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	cb, err := loadKnownHosts([]string{file}, func(string, int, string) { t.Error("warned") })
	if err != nil {
		t.Fatal(err)
	}
	var ke *knownhosts.KeyError
	if err := cb("web:22", zeroAddr{}, hostKey); !errors.As(err, &ke) || len(ke.Want) != 0 {
		t.Errorf("web = %v; want unknown with no known keys", err)
	}
	if err := cb("mail:22", zeroAddr{}, hostKey); !errors.As(err, &ke) || len(ke.Want) != 1 || ke.Want[0].Line != 2 {
		t.Errorf("mail = %v; want its line 2 only", err)
	}
	if err := cb("mail:22", zeroAddr{}, known); err != nil {
		t.Errorf("mail's known key: %v", err)
	}
}
