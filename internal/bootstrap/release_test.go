//go:build unix

package bootstrap

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testKeyFile is the test key's private half, copied with mode 0600 (as
// ssh-keygen wants; git keeps 0644).
func testKeyFile(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "release-test-key"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "release-test-key")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// signFile signs file with key as a release is signed (ssh-keygen -Y sign
// -n namespace), making file.sig.
func signFile(t testing.TB, key, namespace, file string) {
	t.Helper()
	needTools(t, "ssh-keygen")
	os.Remove(file + ".sig")
	out, err := exec.Command("ssh-keygen", "-q", "-Y", "sign", "-f", key, "-n", namespace, file).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen -Y sign %s: %v\n%s", file, err, out)
	}
}

// releaseTamper says what to spoil in a test release.
type releaseTamper int

const (
	tamperNone      releaseTamper = iota
	tamperArchive                 // a byte of the archive, after its checksum was taken
	tamperChecksums               // checksums.txt, after it was signed
	tamperOtherKey                // signed by another key
	tamperUnsigned                // no checksums.txt.sig
)

// releaseDir writes a release directory with one archive, for goos/goarch,
// holding bin as its gosh, checksums.txt, signed with the test key, and
// spoils what tamper says.
func releaseDir(t *testing.T, goos, goarch, bin string, tamper releaseTamper) string {
	t.Helper()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	return releaseDirOf(t, goos, goarch, b, tamper)
}

// releaseDirOf is releaseDir with the binary's contents.
func releaseDirOf(t *testing.T, goos, goarch string, bin []byte, tamper releaseTamper) string {
	t.Helper()
	dir := t.TempDir()
	name := ArchiveName(goos, goarch)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name string
		body []byte
	}{{"LICENSE", []byte("MIT")}, {"gosh", bin}} {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o755, Size: int64(len(f.body)), Typeflag: tar.TypeReg})
		tw.Write(f.body)
	}
	tw.Close()
	zw.Close()
	sums := filepath.Join(dir, checksumsName)
	writeFile(t, sums, fmt.Sprintf("%x  %s\n%x  other.tar.gz\n", sha256.Sum256(buf.Bytes()), name, sha256.Sum256(nil)))
	key := testKeyFile(t)
	if tamper == tamperOtherKey {
		key = filepath.Join(t.TempDir(), "other")
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	signFile(t, key, releaseNamespace, sums)
	archive := buf.Bytes()
	switch tamper {
	case tamperArchive:
		archive[len(archive)/2] ^= 1
	case tamperChecksums:
		b, _ := os.ReadFile(sums)
		writeFile(t, sums, string(b)+fmt.Sprintf("%x  extra.tar.gz\n", sha256.Sum256([]byte("x"))))
	case tamperUnsigned:
		os.Remove(sums + ".sig")
	}
	writeFile(t, filepath.Join(dir, name), string(archive))
	return dir
}

// serveRelease serves dir over HTTPS on loopback and records the requests;
// the source it returns trusts the server's certificate and the test key.
func serveRelease(t *testing.T, dir string) (src ReleaseSource, requests func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path)
		mu.Unlock()
		http.FileServer(http.Dir(dir)).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return ReleaseSource{URL: srv.URL, CAFile: caFile(t, srv), Keys: releaseTestKeys(t)}, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// caFile writes the certificate of srv, an httptest TLS server, to a PEM
// file for curl to trust. (TestMain keeps the downloads off any proxy.)
func caFile(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ca.pem")
	writeFile(t, p, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	return p
}

// TestFetchReleaseRefused: a release that does not verify, or that comes
// over plain http or through a redirect to it, is refused with one line
// saying why, and leaves nothing in the cache. Each refusal is logged
// with its message.
func TestFetchReleaseRefused(t *testing.T) {
	bin := []byte("#!/bin/sh\necho a gosh\n")
	good := releaseDirOf(t, "linux", "arm64", bin, tamperNone)
	name := ArchiveName("linux", "arm64")

	// A plain http server of the good release, and an https one that
	// redirects every request to it.
	plain := httptest.NewServer(http.FileServer(http.Dir(good)))
	t.Cleanup(plain.Close)
	redirect := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(redirect.Close)

	served := func(tamper releaseTamper) ReleaseSource {
		src, _ := serveRelease(t, releaseDirOf(t, "linux", "arm64", bin, tamper))
		return src
	}
	goodSrc, _ := serveRelease(t, good)
	tests := []struct {
		name string
		src  ReleaseSource
		want string
	}{
		{"tampered archive", served(tamperArchive),
			name + " has SHA-256 "},
		{"tampered checksums.txt", served(tamperChecksums),
			"checksums.txt: checksums.txt.sig does not vouch for it: the signature does not match: the file was changed after it was signed"},
		{"signed by another key", served(tamperOtherKey),
			"checksums.txt: checksums.txt.sig does not vouch for it: the signature is by key SHA256:"},
		{"no signature", served(tamperUnsigned),
			"the release's checksums.txt is not signed: https://127.0.0.1:"},
		{"signed by the test key, checked with the release key", ReleaseSource{URL: goodSrc.URL, CAFile: goodSrc.CAFile},
			"which gosh does not trust for releases"},
		{"http URL", ReleaseSource{URL: plain.URL, Keys: releaseTestKeys(t)},
			"refusing " + plain.URL + ": release downloads take https only (GOSH_RELEASE_ALLOW_HTTP=1 allows http; the signature is checked all the same)"},
		{"https to http redirect", ReleaseSource{URL: redirect.URL, CAFile: caFile(t, redirect), Keys: releaseTestKeys(t)},
			"refusing the redirect from " + redirect.URL + "/checksums.txt to a URL that is not https: release downloads take https only"},
		{"not a URL", ReleaseSource{URL: "ftp://127.0.0.1/x", Keys: releaseTestKeys(t)}, `bad release URL "ftp://127.0.0.1/x": want https://`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			_, err := FetchRelease(context.Background(), tc.src, "linux", "arm64", cache)
			var re *ReleaseError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("FetchRelease = %v\nwant one line with %q", err, tc.want)
			}
			t.Logf("refused: %v", re.Err)
			if left, _ := filepath.Glob(filepath.Join(cache, "*")); len(left) > 0 {
				t.Errorf("the cache keeps %q", left)
			}
		})
	}

	// Allowed explicitly, plain http is taken, and the signature checked.
	for _, how := range []string{"AllowHTTP", ReleaseAllowHTTPEnv} {
		t.Run("http allowed by "+how, func(t *testing.T) {
			for _, src := range []ReleaseSource{
				{URL: plain.URL, Keys: releaseTestKeys(t)},
				{URL: redirect.URL, CAFile: caFile(t, redirect), Keys: releaseTestKeys(t)},
			} {
				if how == "AllowHTTP" {
					src.AllowHTTP = true
				} else {
					t.Setenv(ReleaseAllowHTTPEnv, "1")
				}
				cache := t.TempDir()
				p, err := FetchRelease(context.Background(), src, "linux", "arm64", cache)
				if got, _ := os.ReadFile(p); err != nil || !bytes.Equal(got, bin) {
					t.Errorf("FetchRelease from %s = %q, %v; want the binary", src.URL, p, err)
				}
				src.Keys = "" // the release key: the test key's signature is refused
				if _, err := FetchRelease(context.Background(), src, "linux", "arm64", t.TempDir()); err == nil {
					t.Errorf("over allowed http, a release signed by an untrusted key was taken")
				}
			}
		})
	}
}

// TestFetchReleaseCachedVerified: a fetched binary is kept with what
// vouches for it, and checked again before each upload; a binary or an
// archive changed since is refused and removed, one the user put in the
// cache is taken as it is.
func TestFetchReleaseCachedVerified(t *testing.T) {
	bin := []byte("#!/bin/sh\necho a gosh\n")
	sum := fmt.Sprintf("%x", sha256.Sum256(bin))
	src, requests := serveRelease(t, releaseDirOf(t, "linux", "arm64", bin, tamperNone))
	fetch := func(t *testing.T) string {
		t.Helper()
		p, err := FetchRelease(context.Background(), src, "linux", "arm64", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("intact", func(t *testing.T) {
		p := fetch(t)
		if got := requests(); len(got) < 3 || got[len(got)-3] != "/checksums.txt" || got[len(got)-2] != "/checksums.txt.sig" {
			t.Errorf("requests %q: want checksums.txt, its signature, then the archive", got)
		}
		for _, n := range []string{checksumsName, signatureName, ArchiveName("linux", "arm64")} {
			if _, err := os.Stat(filepath.Join(p+".release", n)); err != nil {
				t.Errorf("not kept: %v", err)
			}
		}
		if err := verifyCachedRelease(src, p, sum, "linux", "arm64"); err != nil {
			t.Errorf("verifyCachedRelease = %v", err)
		}
	})
	spoil := map[string]func(p string){
		"binary changed": func(p string) {
			os.WriteFile(p, append(bytes.Clone(bin), '#'), 0o755)
		},
		"archive changed": func(p string) {
			a := filepath.Join(p+".release", ArchiveName("linux", "arm64"))
			b, _ := os.ReadFile(a)
			b[len(b)/2] ^= 1
			os.WriteFile(a, b, 0o644)
		},
		"checksums changed": func(p string) {
			f, _ := os.OpenFile(filepath.Join(p+".release", checksumsName), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("\n")
			f.Close()
		},
	}
	for name, f := range spoil {
		t.Run(name, func(t *testing.T) {
			p := fetch(t)
			f(p)
			h, _ := fileSHA256(p)
			err := verifyCachedRelease(src, p, h, "linux", "arm64")
			if err == nil || !strings.Contains(err.Error(), "is not what its signed release holds") || !strings.Contains(err.Error(), "connect again to download it anew") {
				t.Fatalf("verifyCachedRelease = %v, want a refusal", err)
			}
			t.Logf("refused: %v", err)
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Error("the refused binary is still cached")
			}
			if _, err := os.Stat(p + ".release"); !os.IsNotExist(err) {
				t.Error("what vouched for it is still cached")
			}
		})
	}
	t.Run("the user's own binary", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "gosh-linux-arm64")
		writeFile(t, p, "mine")
		h, _ := fileSHA256(p)
		if err := verifyCachedRelease(src, p, h, "linux", "arm64"); err != nil {
			t.Errorf("verifyCachedRelease of a binary with no release = %v", err)
		}
	})
}
