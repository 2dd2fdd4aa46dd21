package bootstrap

import (
	"archive/tar"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/gosh-term/gosh/internal/buildinfo"
)

// ServerPlatforms are the GOOS/GOARCH pairs a release has server builds
// for (the Unix ones of .goreleaser.yaml).
var ServerPlatforms = [][2]string{
	{"linux", "amd64"}, {"linux", "arm64"}, {"linux", "arm"}, {"linux", "riscv64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"freebsd", "amd64"}, {"freebsd", "arm64"},
	{"openbsd", "amd64"},
}

// ReleaseURLEnv names the environment variable that overrides where release
// archives are downloaded from (a mirror, or a test's server).
const ReleaseURLEnv = "GOSH_RELEASE_URL"

// ReleaseAllowHTTPEnv names the environment variable that, set to 1, lets
// release downloads use plain http:// URLs, and follow redirects from
// https:// to http://, which are refused otherwise. The signature of the
// release is checked all the same.
const ReleaseAllowHTTPEnv = "GOSH_RELEASE_ALLOW_HTTP"

// The names of a release's checksums and of their signature.
const (
	checksumsName = "checksums.txt"
	signatureName = "checksums.txt.sig"
)

// releaseKeys are the public keys whose signature of a release's
// checksums.txt gosh trusts (release_key.pub, docs/release.md).
//
//go:embed release_key.pub
var releaseKeys string

// Download limits.
const (
	maxChecksums   = 1 << 20
	maxArchive     = 256 << 20
	maxBinary      = 256 << 20
	maxRedirects   = 10
	releaseTimeout = 5 * time.Minute
)

// ReleaseURL is the release directory of this version: $GOSH_RELEASE_URL,
// else the project's release page for the tag vVERSION.
func ReleaseURL() string {
	if u := os.Getenv(ReleaseURLEnv); u != "" {
		return strings.TrimRight(u, "/")
	}
	return "https://github.com/gosh-term/gosh/releases/download/v" + releaseVersion()
}

// releaseVersion is the version as the release's archive names carry it
// (the tag without its leading "v").
func releaseVersion() string { return strings.TrimPrefix(buildinfo.Version, "v") }

// ArchiveName is the name of the release archive of goos/goarch, as the
// release (.goreleaser.yaml) names it.
func ArchiveName(goos, goarch string) string {
	arch := goarch
	if goarch == "arm" {
		arch = "armv7"
	}
	return fmt.Sprintf("gosh_%s_%s_%s.tar.gz", releaseVersion(), goos, arch)
}

// ReleaseSource is where release files come from: a URL or a directory,
// and what is trusted of them. The zero value of each field but URL and
// Dir is the safe default: https only, gosh's release key.
type ReleaseSource struct {
	// URL is a release directory URL: https://…, or http://… with
	// AllowHTTP.
	URL string
	// Dir, when set, is a local directory holding the release files.
	Dir string
	// AllowHTTP lets URL, and the redirects it answers with, be plain
	// http:// (as $GOSH_RELEASE_ALLOW_HTTP=1 does). The signature is
	// checked all the same.
	AllowHTTP bool
	// Keys are the public keys, one a line in authorized_keys form,
	// whose signature of checksums.txt is trusted; "" means gosh's
	// release key, built in. (Tests sign with a key of their own.)
	Keys string
	// CAFile, if set, is a PEM file of the certificates trusted for
	// URL's TLS instead of the system's (a test's server); downloads
	// are made by the system's curl (fetch.go).
	CAFile string
}

func (s ReleaseSource) String() string {
	if s.Dir != "" {
		return s.Dir
	}
	return s.URL
}

// allowHTTP reports whether plain http is allowed.
func (s ReleaseSource) allowHTTP() bool {
	return s.AllowHTTP || os.Getenv(ReleaseAllowHTTPEnv) == "1"
}

// keys returns the trusted public keys.
func (s ReleaseSource) keys() ([]ssh.PublicKey, error) {
	return parseKeys([]byte(cmp.Or(s.Keys, releaseKeys)))
}

// checkURL refuses a URL that is not https (or http, when allowed).
func (s ReleaseSource) checkURL() error {
	if s.Dir != "" {
		return nil
	}
	u, err := url.Parse(s.URL)
	switch {
	case err != nil || u.Host == "":
		return fmt.Errorf("bad release URL %q", s.URL)
	case u.Scheme == "https", u.Scheme == "http" && s.allowHTTP():
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("refusing %s: release downloads take https only (%s=1 allows http; the signature is checked all the same)", s.URL, ReleaseAllowHTTPEnv)
	}
	return fmt.Errorf("bad release URL %q: want https://", s.URL)
}

// open returns a release file, at most limit bytes of it.
func (s ReleaseSource) open(ctx context.Context, name string, limit int64) (io.ReadCloser, error) {
	if s.Dir != "" {
		f, err := os.Open(filepath.Join(s.Dir, name))
		if err != nil {
			return nil, err
		}
		return readCloser{io.LimitReader(f, limit), f}, nil
	}
	body, err := httpGet(ctx, s.URL+"/"+name, getOptions{allowHTTP: s.allowHTTP(), caFile: s.CAFile})
	if err != nil {
		return nil, err
	}
	return readCloser{io.LimitReader(body, limit), body}, nil
}

// read returns a whole release file of at most limit bytes.
func (s ReleaseSource) read(ctx context.Context, name string, limit int64) ([]byte, error) {
	r, err := s.open(ctx, name, limit+1)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s is longer than %d bytes", name, limit)
	}
	return b, err
}

type readCloser struct {
	io.Reader
	io.Closer
}

// ReleaseError says a release binary could not be fetched or verified.
type ReleaseError struct {
	GOOS, GOARCH string
	From         string // the release URL or directory
	Err          error
}

func (e *ReleaseError) Error() string {
	return fmt.Sprintf("bootstrap: no verified gosh %s release for %s/%s from %s: %v; install a binary for it "+
		"(gosh server install --os %s --arch %s --from DIR, with DIR holding the release's archives, checksums.txt and checksums.txt.sig) "+
		"or set %s to a mirror", releaseVersion(), e.GOOS, e.GOARCH, e.From, e.Err, e.GOOS, e.GOARCH, ReleaseURLEnv)
}

func (e *ReleaseError) Unwrap() error { return e.Err }

// FetchRelease downloads the release archive of goos/goarch from src,
// checks it against the release's checksums.txt, whose signature it
// checks first with src's keys (gosh's release key), and extracts its
// gosh binary into cacheDir as gosh-GOOS-GOARCH. Next to it, in
// gosh-GOOS-GOARCH.release, it keeps what vouches for it (the archive,
// checksums.txt and its signature), for [verifyCachedRelease] to check
// again before each upload. Nothing unverified is kept.
func FetchRelease(ctx context.Context, src ReleaseSource, goos, goarch, cacheDir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	fail := func(err error) (string, error) {
		return "", &ReleaseError{GOOS: goos, GOARCH: goarch, From: src.String(), Err: err}
	}
	if err := src.checkURL(); err != nil {
		return fail(err)
	}
	name := ArchiveName(goos, goarch)
	sums, sig, err := signedChecksums(ctx, src)
	if err != nil {
		return fail(err)
	}
	want, err := checksumOf(sums, name)
	if err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return fail(err)
	}
	tmpDir, err := os.MkdirTemp(cacheDir, ".release-*")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmpDir)
	archive := filepath.Join(tmpDir, name)
	if err := download(ctx, src, name, archive, want); err != nil {
		return fail(err)
	}
	for n, b := range map[string][]byte{checksumsName: sums, signatureName: sig} {
		if err := os.WriteFile(filepath.Join(tmpDir, n), b, 0o644); err != nil {
			return fail(err)
		}
	}
	dst := filepath.Join(cacheDir, "gosh-"+goos+"-"+goarch)
	if err := extractGosh(archive, dst+".tmp"); err != nil {
		os.Remove(dst + ".tmp")
		return fail(fmt.Errorf("%s: %w", name, err))
	}
	// What vouches for the binary goes in place first: a binary found
	// without it is taken for one the user put there.
	os.RemoveAll(dst + ".release")
	if err := os.Rename(tmpDir, dst+".release"); err != nil {
		os.Remove(dst + ".tmp")
		return fail(err)
	}
	if err := os.Rename(dst+".tmp", dst); err != nil {
		return fail(err)
	}
	return dst, nil
}

// signedChecksums reads the release's checksums.txt and its signature,
// and checks the signature with src's keys.
func signedChecksums(ctx context.Context, src ReleaseSource) (sums, sig []byte, err error) {
	keys, err := src.keys()
	if err != nil {
		return nil, nil, err
	}
	if sums, err = src.read(ctx, checksumsName, maxChecksums); err != nil {
		return nil, nil, err
	}
	if sig, err = src.read(ctx, signatureName, maxSignature); err != nil {
		return nil, nil, fmt.Errorf("the release's %s is not signed: %w", checksumsName, err)
	}
	if err := verifyChecksums(sums, sig, keys); err != nil {
		return nil, nil, err
	}
	return sums, sig, nil
}

// verifyChecksums checks sig, the armored SSH signature of sums, with
// keys.
func verifyChecksums(sums, sig []byte, keys []ssh.PublicKey) error {
	s, err := parseSSHSignature(sig)
	if err == nil {
		err = s.verify(sums, releaseNamespace, keys)
	}
	if err != nil {
		return fmt.Errorf("%s: %s does not vouch for it: %w", checksumsName, signatureName, err)
	}
	return nil
}

// download writes the release file name to path, and checks that its
// SHA-256 is want.
func download(ctx context.Context, src ReleaseSource, name, path, want string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := src.open(ctx, name, maxArchive)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(f, h), r)
	r.Close()
	if err != nil {
		return fmt.Errorf("downloading %s: %w", name, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s has SHA-256 %s, but the signed checksums.txt says %s", name, got, want)
	}
	return f.Close()
}

// checksumOf returns the SHA-256 that checksums.txt (sums) lists for
// name, in lower case.
func checksumOf(sums []byte, name string) (string, error) {
	for line := range strings.Lines(string(sums)) {
		f := strings.Fields(line)
		if len(f) == 2 && strings.TrimPrefix(f[1], "*") == name && len(f[0]) == 64 {
			if _, err := hex.DecodeString(f[0]); err == nil {
				return strings.ToLower(f[0]), nil
			}
		}
	}
	return "", fmt.Errorf("checksums.txt lists no %s", name)
}

// verifyCachedRelease checks, before an upload, that the binary at path
// whose SHA-256 is sum is still what its signed release vouches for, when
// it came from one: path.release holds the release's checksums.txt, its
// signature and the archive ([FetchRelease]). The signature is checked
// with src's keys, the archive against checksums.txt, and its gosh
// against sum. A binary that fails is removed, with what vouched for
// it, so that the next connect downloads it again. A binary with no
// path.release is not a download (one the user put in the cache, or this
// client's own) and is not checked.
func verifyCachedRelease(src ReleaseSource, path, sum, goos, goarch string) error {
	dir := path + ".release"
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	err := checkCachedRelease(src, dir, sum, ArchiveName(goos, goarch))
	if err == nil {
		return nil
	}
	os.Remove(path)
	os.RemoveAll(dir)
	return fmt.Errorf("bootstrap: the cached gosh for %s/%s (%s) is not what its signed release holds: %v; removed it: connect again to download it anew", goos, goarch, path, err)
}

// checkCachedRelease is verifyCachedRelease's check of dir.
func checkCachedRelease(src ReleaseSource, dir, sum, name string) error {
	keys, err := src.keys()
	if err != nil {
		return err
	}
	sums, err := readLimited(filepath.Join(dir, checksumsName), maxChecksums)
	if err != nil {
		return err
	}
	sig, err := readLimited(filepath.Join(dir, signatureName), maxSignature)
	if err != nil {
		return err
	}
	if err := verifyChecksums(sums, sig, keys); err != nil {
		return err
	}
	want, err := checksumOf(sums, name)
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxArchive)); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s has SHA-256 %s, but the signed checksums.txt says %s", name, got, want)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var inArchive string
	err = findGosh(f, func(r io.Reader) error {
		h := sha256.New()
		n, err := io.Copy(h, io.LimitReader(r, maxBinary+1))
		if err == nil && n > maxBinary {
			err = errors.New("the gosh binary is too large")
		}
		inArchive = hex.EncodeToString(h.Sum(nil))
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if inArchive != sum {
		return fmt.Errorf("its SHA-256 is %s, but the archive's gosh has %s", sum, inArchive)
	}
	return nil
}

// extractGosh writes the top-level gosh binary of the archive at path
// to dst.
func extractGosh(path, dst string) error {
	a, err := os.Open(path)
	if err != nil {
		return err
	}
	defer a.Close()
	return findGosh(a, func(r io.Reader) error {
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
		if err != nil {
			return err
		}
		n, err := io.Copy(f, io.LimitReader(r, maxBinary+1))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && n > maxBinary {
			err = errors.New("the gosh binary is too large")
		}
		return err
	})
}

// findGosh calls fn with the contents of the archive's top-level gosh
// binary (a gzipped tar), and returns its error.
func findGosh(archive io.Reader, fn func(io.Reader) error) error {
	zr, err := gzip.NewReader(archive)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("no gosh binary in the archive")
		}
		if err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeReg && strings.TrimPrefix(hdr.Name, "./") == "gosh" {
			return fn(tr)
		}
	}
}
