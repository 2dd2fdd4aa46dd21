//go:build releasecheck

// Package releasecheck checks a GoReleaser snapshot in dist/ (make
// release-check: goreleaser check, make dist, then this test with
// GOSH_DIST pointing at dist/): every archive, package and manifest the
// release promises is there, listed in checksums.txt with the right
// SHA-256, holds what it should (every man page the command tree makes,
// the completions where each package format's shells look),
// checksums.txt is signed (with the test key), the Homebrew cask installs
// it all without a stanza Homebrew deprecates, and the linux/amd64 binary
// runs and carries the stamped version.
package releasecheck

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/bootstrap"
	"github.com/gosh-term/gosh/internal/buildinfo"
)

// targets are the release's platforms (.goreleaser.yaml).
var targets = [][2]string{
	{"linux", "amd64"}, {"linux", "arm64"}, {"linux", "arm"}, {"linux", "riscv64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
	{"freebsd", "amd64"}, {"freebsd", "arm64"},
	{"openbsd", "amd64"},
}

// inArchive are the files every archive holds besides the binary and the
// man pages (man/, every one of manPages).
var inArchive = []string{"LICENSE", "README.md",
	"completions/gosh.bash", "completions/gosh.zsh", "completions/gosh.fish", "completions/gosh.ps1"}

func dist(t *testing.T) string {
	d := os.Getenv("GOSH_DIST")
	if d == "" {
		t.Fatal("GOSH_DIST is not set: run make release-check")
	}
	return d
}

func TestDist(t *testing.T) {
	d := dist(t)
	var meta struct{ Version string }
	b, err := os.ReadFile(filepath.Join(d, "metadata.json"))
	if err != nil || json.Unmarshal(b, &meta) != nil || meta.Version == "" {
		t.Fatalf("dist/metadata.json: %v", err)
	}
	buildinfo.Version = meta.Version // the archive names carry it
	sums := checksums(t, d)
	want := slices.Clone(inArchive)
	for _, m := range manPages(t) {
		want = append(want, "man/"+m)
	}

	for _, p := range targets {
		name := bootstrap.ArchiveName(p[0], p[1])
		bin := "gosh"
		if p[0] == "windows" {
			name, bin = strings.TrimSuffix(name, ".tar.gz")+".zip", "gosh.exe"
		}
		path := filepath.Join(d, name)
		if got := fileSHA256(t, path); sums[name] != got {
			t.Errorf("%s: SHA-256 %s, checksums.txt says %q", name, got, sums[name])
		}
		files := listArchive(t, path)
		for _, f := range append([]string{bin}, want...) {
			if !slices.Contains(files, f) {
				t.Errorf("%s lacks %s (has %q)", name, f, files)
			}
		}
	}
	for _, pattern := range []string{"*_amd64.deb", "*_arm64.deb", "*_armhf.deb", "*_riscv64.deb",
		"*.x86_64.rpm", "*.aarch64.rpm", "*.armv7hl.rpm", "*.riscv64.rpm",
		"*_x86_64.apk", "*_aarch64.apk", "*_armv7.apk", "*_riscv64.apk",
		"homebrew/Casks/gosh.rb", "scoop/gosh.json"} {
		if m, _ := filepath.Glob(filepath.Join(d, pattern)); len(m) != 1 {
			t.Errorf("dist/%s: %d files, want 1", pattern, len(m))
		}
	}

	// checksums.txt is signed (with the test key, in a snapshot), as
	// OpenSSH's ssh-keygen -Y verify checks it too, and lists everything
	// but its signature (which it cannot list without changing after it
	// was signed).
	testKey, err := os.ReadFile(filepath.Join("..", "bootstrap", "testdata", "release-test-key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if _, listed := sums["checksums.txt.sig"]; listed {
		t.Error("checksums.txt lists its own signature")
	}
	f := strings.Fields(string(testKey))
	allowed := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(allowed, []byte("gosh-release "+f[0]+" "+f[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	verify := exec.Command("ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "gosh-release", "-n", "gosh-release", "-s", filepath.Join(d, "checksums.txt.sig"))
	if verify.Stdin, err = os.Open(filepath.Join(d, "checksums.txt")); err != nil {
		t.Fatal(err)
	}
	if out, err := verify.CombinedOutput(); err != nil {
		t.Errorf("ssh-keygen -Y verify of checksums.txt: %v\n%s", err, out)
	}

	// The linux/amd64 binary, fetched with the signature checked, runs
	// and says its version.
	cache := t.TempDir()
	gosh, err := bootstrap.FetchRelease(context.Background(), bootstrap.ReleaseSource{Dir: d, Keys: string(testKey)}, "linux", "amd64", cache)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(gosh, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "gosh "+meta.Version+" (mosh protocol 2, linux/amd64") {
		t.Errorf("gosh version = %q, %v; want the stamped version %s", out, err, meta.Version)
	}
	if out, err := exec.Command(gosh, "--version").CombinedOutput(); err != nil || !strings.Contains(string(out), meta.Version) {
		t.Errorf("gosh --version = %q, %v", out, err)
	}
}

func checksums(t *testing.T, d string) map[string]string {
	f, err := os.Open(filepath.Join(d, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) == 2 {
			sums[fs[1]] = fs[0]
		}
	}
	return sums
}

func fileSHA256(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil))
}

func listArchive(t *testing.T, path string) []string {
	var names []string
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		return names
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return names
		}
		names = append(names, h.Name)
	}
}
