package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/bootstrap"
)

// TestServerInstall: gosh server install --from DIR fills the binary cache
// with the release's build for a platform, verified against checksums.txt
// once its signature is, and refuses a tampered archive, a release with
// no signature, and one signed by a key it does not trust.
func TestServerInstall(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen signs the test release (the verifier's own tests, internal/bootstrap, run everywhere)")
	}
	testKey := filepath.Join("..", "..", "internal", "bootstrap", "testdata", "release-test-key")
	pub, err := os.ReadFile(testKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(t.TempDir(), "key")
	if b, err := os.ReadFile(testKey); err != nil || os.WriteFile(key, b, 0o600) != nil {
		t.Fatalf("copying the test key: %v", err)
	}
	tests := []struct {
		name           string
		tamper, unsign bool
		trustTestKey   bool
		want           string // "" for installed
	}{
		{"signed", false, false, true, ""},
		{"tampered", true, false, true, "SHA-256"},
		{"unsigned", false, true, true, "the release's checksums.txt is not signed"},
		{"signed by an untrusted key", false, false, false, "which gosh does not trust for releases"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.trustTestKey {
				installKeys = string(pub)
				defer func() { installKeys = "" }()
			}
			release, cache := t.TempDir(), t.TempDir()
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			tw := tar.NewWriter(zw)
			body := []byte("#!/bin/sh\necho a gosh\n")
			tw.WriteHeader(&tar.Header{Name: "gosh", Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg})
			tw.Write(body)
			tw.Close()
			zw.Close()
			name := bootstrap.ArchiveName("linux", "riscv64")
			archive := buf.Bytes()
			sums := filepath.Join(release, "checksums.txt")
			os.WriteFile(sums, fmt.Appendf(nil, "%x  %s\n", sha256.Sum256(archive), name), 0o644)
			if !tc.unsign {
				if out, err := exec.Command("ssh-keygen", "-q", "-Y", "sign", "-f", key, "-n", "gosh-release", sums).CombinedOutput(); err != nil {
					t.Fatalf("ssh-keygen -Y sign: %v\n%s", err, out)
				}
			}
			if tc.tamper {
				archive[len(archive)-1] ^= 1
			}
			os.WriteFile(filepath.Join(release, name), archive, 0o644)
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"server", "install", "--os", "linux", "--arch", "riscv64", "--from", release, "--binary-cache", cache},
				strings.NewReader(""), &out, &errOut)
			got, err := os.ReadFile(filepath.Join(cache, "gosh-linux-riscv64"))
			switch {
			case tc.want != "" && (code == 0 || err == nil || !strings.Contains(errOut.String(), tc.want) || strings.Count(errOut.String(), "\n") != 1):
				t.Errorf("exit %d, stderr %q, cached %v; want a one-line failure saying %q and nothing cached", code, errOut.String(), err == nil, tc.want)
			case tc.want == "" && (code != 0 || !bytes.Equal(got, body)):
				t.Errorf("exit %d, stderr %q, cached %q; want the archive's gosh", code, errOut.String(), got)
			}
		})
	}
}
