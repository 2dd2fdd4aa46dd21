//go:build unix

package bootstrap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/buildinfo"
)

// Self-upload: the remote has no gosh on PATH, so the client uploads one
// into ~/.local/share/gosh/VERSION/gosh, checks its SHA-256 and runs it.

var goshBuild struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// buildGosh builds ./cmd/gosh once per test binary.
func buildGosh(t testing.TB) string {
	t.Helper()
	goshBuild.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			goshBuild.err = err
			return
		}
		if goshBuild.dir, err = os.MkdirTemp("", "gosh-bootstrap-test-"); err != nil {
			goshBuild.err = err
			return
		}
		goshBuild.path = filepath.Join(goshBuild.dir, "gosh")
		cmd := exec.Command("go", "build", "-o", goshBuild.path, "./cmd/gosh")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			goshBuild.err = fmt.Errorf("go build ./cmd/gosh: %v\n%s", err, out)
		}
	})
	if goshBuild.err != nil {
		t.Fatal(goshBuild.err)
	}
	return goshBuild.path
}

func init() {
	afterTests = append(afterTests, func() {
		if goshBuild.dir != "" {
			os.RemoveAll(goshBuild.dir)
		}
	})
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// uploadFixture is an sshd whose sessions have their own HOME and a PATH
// of fakeBin:/usr/bin:/bin, where fakeBin may hold fake programs.
type uploadFixture struct {
	h          *testHome
	s          *sshd
	remoteHome string
	fakeBin    string
	gosh       string
	// cache is the binary cache of the configs, shared by the fixtures
	// of the test binary: the gzip stream of the test's gosh is made once
	// (it takes seconds under the race detector). Tests of the cache
	// itself use a cache of their own.
	cache string
}

func newUploadFixture(t testing.TB) *uploadFixture {
	return newUploadFixturePATH(t, "/usr/bin:/bin")
}

// newUploadFixturePATH is newUploadFixture with the remote PATH
// fakeBin:path.
func newUploadFixturePATH(t testing.TB, path string) *uploadFixture {
	for _, p := range []string{"/usr/bin/gosh", "/bin/gosh"} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s exists; the upload tests need a remote PATH without gosh", p)
		}
	}
	f := &uploadFixture{h: newTestHome(t), remoteHome: t.TempDir(), fakeBin: t.TempDir(), gosh: buildGosh(t)}
	t.Cleanup(func() {
		// Runs before the temporary directory's own removal: the remote
		// side's processes (a relay, a server) end when their SSH session
		// does, and may still write into their home for a moment.
		for end := time.Now().Add(10 * time.Second); os.RemoveAll(f.remoteHome) != nil && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
		}
	})
	f.cache = filepath.Join(filepath.Dir(f.gosh), "binary-cache")
	f.s = startSSHD(t, sshdOptions{authorized: []string{f.h.key + ".pub"}, remoteHome: f.remoteHome,
		path: f.fakeBin + ":" + path})
	f.h.trust(t, f.s)
	return f
}

// uploadedPath is where the remote keeps an upload of the test's gosh:
// content-addressed by its SHA-256.
func (f *uploadFixture) uploadedPath() string {
	sum, err := fileSHA256(f.gosh)
	if err != nil {
		panic(err)
	}
	return filepath.Join(f.remoteHome, ".local", "share", "gosh", sum, "gosh")
}

func (f *uploadFixture) cfg(logs *syncBuffer, stderr *syncBuffer) Config {
	cfg := f.h.cfg("root@" + f.s.addr())
	cfg.ServerCommand = ""
	cfg.Upload = UploadAuto
	cfg.LocalBinary = f.gosh
	cfg.BinaryCache = f.cache
	cfg.Stderr = stderr
	cfg.Logf = func(format string, args ...any) { fmt.Fprintf(logs, format+"\n", args...) }
	return cfg
}

// fake writes an executable shell script into the remote PATH.
func (f *uploadFixture) fake(t *testing.T, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.fakeBin, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// runGosh runs the bootstrap against the uploaded or PATH gosh, which must
// start a real server: the probe exchanges authentic datagrams with it.
func runGosh(t *testing.T, cfg Config, logs *syncBuffer) (Result, string) {
	t.Helper()
	res, err := Run(testContext(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	killServer(t, res.ServerPID)
	probeServer(t, res.Addr, res.Port, res.Key)
	return res, res.RemoteGosh
}

// TestRunSelfUpload: the first connect uploads gosh as a gzip stream,
// compressed while it is sent and then cached; the remote decompresses
// it (it receives far fewer bytes than the binary has, and installs the
// binary). The second connect runs it without an upload.
func TestRunSelfUpload(t *testing.T) {
	f := newUploadFixture(t)
	var logs, stderr syncBuffer
	cfg := f.cfg(&logs, &stderr)
	cfg.BinaryCache = t.TempDir()
	_, using := runGosh(t, cfg, &logs)
	if !strings.Contains(stderr.String(), "uploading gosh "+buildinfo.Version) {
		t.Errorf("stderr %q does not announce the upload", stderr.String())
	}
	if using != f.uploadedPath() {
		t.Errorf("the start script ran %q, want the uploaded %q", using, f.uploadedPath())
	}
	checkUploaded(t, f)
	sent := checkSent(t, f, logs.String(), "gzip "+gzipFromCompressor)
	sum, _ := fileSHA256(f.gosh)
	cached, err := os.ReadFile(filepath.Join(cfg.BinaryCache, gzipCachePrefix(runtime.GOOS, runtime.GOARCH)+sum+".gz"))
	if err != nil || int64(len(cached)) != sent || !wholeGzip(cached) {
		t.Errorf("cached stream: %d bytes (%v), whole %v; want the %d bytes sent", len(cached), err, wholeGzip(cached), sent)
	}
	st1, err := os.Stat(f.uploadedPath())
	if err != nil {
		t.Fatal(err)
	}

	t.Run("second connect reuses it", func(t *testing.T) {
		var logs, stderr syncBuffer
		_, using := runGosh(t, f.cfg(&logs, &stderr), &logs)
		if strings.Contains(stderr.String(), "uploading") {
			t.Errorf("uploaded again: %q", stderr.String())
		}
		st2, err := os.Stat(f.uploadedPath())
		if err != nil || !os.SameFile(st1, st2) || !st1.ModTime().Equal(st2.ModTime()) {
			t.Errorf("the uploaded binary was replaced")
		}
		if using != f.uploadedPath() {
			t.Errorf("ran %q, want %q", using, f.uploadedPath())
		}
	})
	t.Run("upload never", func(t *testing.T) {
		var logs, stderr syncBuffer
		cfg := f.cfg(&logs, &stderr)
		cfg.Upload = UploadNever
		_, err := Run(testContext(t), cfg)
		var se *ServerError
		if !errors.As(err, &se) || se.ExitStatus != 127 {
			t.Fatalf("Run = %v, want a ServerError with status 127 (gosh not found)", err)
		}
	})
}

// TestRunUploadProgress: an upload that takes seconds (a loopback link
// paced to 3 MB/s) shows its progress on stderr, here not a terminal: a
// line with the bytes, the rate and the time left, then how long it took.
func TestRunUploadProgress(t *testing.T) {
	f := newUploadFixture(t)
	port := pacedProxy(t, f.s.addr(), 3_000_000)
	trustPort(t, f.h, f.s, port)
	var logs, stderr syncBuffer
	cfg := f.cfg(&logs, &stderr)
	cfg.Destination = "root@127.0.0.1:" + strconv.Itoa(port)
	cfg.BinaryCache = t.TempDir() // compressed while sent: its length is estimated
	runGosh(t, cfg, &logs)
	checkUploaded(t, f)
	sent := checkSent(t, f, logs.String(), "gzip "+gzipFromCompressor)
	out := stderr.String()
	if !regexp.MustCompile(`(?m)^gosh: uploading [0-9.]+ [KM]B of ~?[0-9.]+ MB \(\d+%\), [0-9.]+ [KM]B/s, (\d+ s left|finishing)$`).MatchString(out) {
		t.Errorf("no progress line on stderr:\n%s", out)
	}
	if want := "gosh: uploaded " + formatBytes(sent) + " in "; !strings.Contains(out, want) {
		t.Errorf("stderr does not say %q:\n%s", want, out)
	}
	if strings.Contains(out, "\r") {
		t.Errorf("carriage returns on a stderr that is not a terminal: %q", out)
	}
}

// checkUploaded verifies the uploaded file is the local binary, private,
// and runs on the remote.
func checkUploaded(t *testing.T, f *uploadFixture) {
	t.Helper()
	want, err := fileSHA256(f.gosh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fileSHA256(f.uploadedPath())
	if err != nil {
		t.Fatalf("no uploaded binary: %v", err)
	}
	if got != want {
		t.Errorf("uploaded SHA-256 = %s, want %s", got, want)
	}
	st, err := os.Stat(filepath.Dir(f.uploadedPath()))
	if err != nil || st.Mode().Perm()&0o077 != 0 {
		t.Errorf("upload directory mode = %v, want no group/other access", st.Mode())
	}
	out, err := exec.Command(f.uploadedPath(), "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("mosh protocol %d,", buildinfo.MoshProtocolVersion)) {
		t.Errorf("uploaded gosh version: %v %q", err, out)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(f.uploadedPath()), ".gosh-upload.*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %q", left)
	}
}

// checkSent checks that the upload in logs was sent as how says
// ("uncompressed" or "gzip <origin>"), all of the binary or, for a gzip
// stream, at most 3/4 of it; it returns the bytes sent.
func checkSent(t *testing.T, f *uploadFixture, logs, how string) int64 {
	t.Helper()
	st, err := os.Stat(f.gosh)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs, ", "+how+")\n") {
		t.Errorf("the upload was not sent %s; logs:\n%s", how, logs)
	}
	m := regexp.MustCompile(`bootstrap: uploaded \S+: sent (\d+) bytes in `).FindStringSubmatch(logs)
	if m == nil {
		t.Fatalf("no upload logged:\n%s", logs)
	}
	sent, _ := strconv.ParseInt(m[1], 10, 64)
	if how == "uncompressed" && sent != st.Size() || how != "uncompressed" && sent > st.Size()*3/4 {
		t.Errorf("sent %d bytes %s for a binary of %d", sent, how, st.Size())
	}
	return sent
}

// TestRunUploadWithoutGzip: a remote without a gzip, or with one that
// cannot decompress the probe, gets the binary uncompressed.
func TestRunUploadWithoutGzip(t *testing.T) {
	noGzip := toolDir(t, "sh", "uname", "grep", "mkdir", "cat", "rm", "chmod", "mv", "sha256sum")
	for _, tc := range []struct {
		name string
		f    func(t *testing.T) *uploadFixture
	}{
		{"no gzip on PATH", func(t *testing.T) *uploadFixture { return newUploadFixturePATH(t, noGzip) }},
		{"gzip cannot decompress", func(t *testing.T) *uploadFixture {
			f := newUploadFixture(t)
			f.fake(t, "gzip", "exit 1\n")
			return f
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f(t)
			var logs, stderr syncBuffer
			_, using := runGosh(t, f.cfg(&logs, &stderr), &logs)
			if using != f.uploadedPath() {
				t.Errorf("the start script ran %q, want the uploaded %q", using, f.uploadedPath())
			}
			checkUploaded(t, f)
			checkSent(t, f, logs.String(), "uncompressed")
		})
	}
}

// TestRunUploadBadCachedStream: a cached gzip stream that is truncated,
// corrupt or of another binary installs nothing on the remote, fails
// with the reason, and is dropped from the cache.
func TestRunUploadBadCachedStream(t *testing.T) {
	f := newUploadFixture(t)
	bin, err := os.ReadFile(f.gosh)
	if err != nil {
		t.Fatal(err)
	}
	head := gzipBytes(t, bin[:64<<10])
	corrupt := bytes.Clone(head)
	corrupt[len(corrupt)/2] ^= 0x55
	for _, tc := range []struct {
		name    string
		stream  []byte
		wantErr string
	}{
		{"truncated", head[:len(head)/2], "receiving the upload failed (gzip: stdin: unexpected end of file); nothing was installed"},
		{"corrupt", corrupt, "receiving the upload failed (gzip: stdin: "},
		{"another binary", head, "SHA-256 check failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs, stderr syncBuffer
			cfg := f.cfg(&logs, &stderr)
			cfg.BinaryCache = t.TempDir()
			cached := filepath.Join(cfg.BinaryCache, gzipCachePrefix(runtime.GOOS, runtime.GOARCH)+sha256Hex(bin)+".gz")
			writeFile(t, cached, string(tc.stream))
			_, err := Run(testContext(t), cfg)
			var se *ServerError
			if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "bootstrap: uploading gosh to the remote failed (exit status 1): ") ||
				!strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Run = %v, want an upload error saying %q", err, tc.wantErr)
			}
			if !strings.Contains(logs.String(), ", gzip "+cached+")") {
				t.Errorf("the cached stream was not sent; logs:\n%s", logs.String())
			}
			if _, err := os.Stat(f.uploadedPath()); err == nil {
				t.Errorf("a binary was installed from a bad stream")
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(f.uploadedPath()), ".gosh-upload.*")); len(left) > 0 {
				t.Errorf("temporary files left behind: %q", left)
			}
			if _, err := os.Stat(cached); err == nil {
				t.Errorf("the bad stream is still cached")
			}
		})
	}
}

func TestRunGoshOnPath(t *testing.T) {
	const key = "4NeCCgvZFe2RnPgrcU1PQw"
	f := newUploadFixture(t)
	// A compatible gosh on PATH is used as is; one with another protocol
	// is not.
	f.fake(t, "gosh", `case "$1" in
version) echo "gosh fake (mosh protocol 2, linux/amd64, go)";;
server) echo "MOSH CONNECT 60123 `+key+`";;
esac
`)
	var logs, stderr syncBuffer
	res, err := Run(testContext(t), f.cfg(&logs, &stderr))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Port != 60123 || res.Key.Base64() != key || res.RemoteGosh != "gosh" || res.Uploaded != "" {
		t.Errorf("Run = port %d key %s gosh %q uploaded %q, want 60123 %s gosh \"\"", res.Port, res.Key.Base64(), res.RemoteGosh, res.Uploaded, key)
	}

	t.Run("too old", func(t *testing.T) {
		f.fake(t, "gosh", "echo 'gosh 0.0.1 (mosh protocol 1, linux/amd64, go)'\n")
		var logs, stderr syncBuffer
		_, using := runGosh(t, f.cfg(&logs, &stderr), &logs)
		if using != f.uploadedPath() {
			t.Errorf("ran %q, want the uploaded %q", using, f.uploadedPath())
		}
		checkUploaded(t, f)
	})
}

// TestRunUploadOtherPlatform: the remote is linux/arm64 (a fake uname) and
// the client has no binary for it: the release's arm64 archive is fetched
// over HTTP, verified against the release's checksums, cached, uploaded
// and run; a tampered archive is refused and nothing of it is kept. (The
// "arm64" archive holds this machine's binary, so that it runs here.)
func TestRunUploadOtherPlatform(t *testing.T) {
	t.Parallel() // a real sshd in real time, on ports and dirs of its own
	f := newUploadFixture(t)
	f.fake(t, "uname", `case "$1" in -s) echo Linux;; -m) echo aarch64;; *) /bin/uname "$@";; esac`+"\n")

	cache := filepath.Join(f.h.dir, "empty-cache")
	t.Run("tampered archive", func(t *testing.T) {
		src, requests := serveRelease(t, releaseDir(t, "linux", "arm64", f.gosh, tamperArchive))
		var logs, stderr syncBuffer
		cfg := f.cfg(&logs, &stderr)
		cfg.BinaryCache = cache
		cfg.Release = src
		_, err := Run(testContext(t), cfg)
		var re *ReleaseError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "SHA-256") || !strings.Contains(err.Error(), src.URL) {
			t.Fatalf("Run = %v, want a ReleaseError naming the URL and the SHA-256 mismatch", err)
		}
		if got := requests(); len(got) != 3 {
			t.Errorf("requests %q, want checksums.txt, its signature and the archive", got)
		}
		if left, _ := filepath.Glob(filepath.Join(cfg.BinaryCache, "*")); len(left) > 0 {
			t.Errorf("the cache keeps %q from a tampered archive", left)
		}
		if _, err := os.Stat(f.uploadedPath()); err == nil {
			t.Error("something was uploaded")
		}
	})

	t.Run("fetched, verified, uploaded", func(t *testing.T) {
		src, requests := serveRelease(t, releaseDir(t, "linux", "arm64", f.gosh, tamperNone))
		logs, stderr := &syncBuffer{}, &syncBuffer{}
		cfg := f.cfg(logs, stderr)
		cfg.BinaryCache = cache
		cfg.Release = src
		runGosh(t, cfg, logs)
		want := []string{"/checksums.txt", "/checksums.txt.sig", "/" + ArchiveName("linux", "arm64")}
		if got := requests(); !slices.Equal(got, want) {
			t.Errorf("requests %q, want %q", got, want)
		}
		if !strings.Contains(stderr.String(), "for linux/arm64") {
			t.Errorf("stderr %q does not announce a linux/arm64 download and upload", stderr.String())
		}
		if got, _ := fileSHA256(filepath.Join(cfg.BinaryCache, "gosh-linux-arm64")); got == "" {
			t.Error("the verified binary was not cached")
		}
		checkUploaded(t, f)

		// The next connect finds it uploaded: no download, no upload.
		logs, stderr = &syncBuffer{}, &syncBuffer{}
		cfg.Logf = func(format string, args ...any) { fmt.Fprintf(logs, format+"\n", args...) }
		cfg.Stderr = stderr
		runGosh(t, cfg, logs)
		if n := len(requests()); n != 3 || strings.Contains(stderr.String(), "uploading") {
			t.Errorf("second connect: %d requests, stderr %q; want nothing fetched or uploaded", n, stderr.String())
		}

		// On a remote without it, when the cached binary changed since:
		// it is checked again before the upload, refused and removed.
		cached := filepath.Join(cfg.BinaryCache, "gosh-linux-arm64")
		appendFile(t, cached, "\n# changed\n")
		if err := os.RemoveAll(filepath.Dir(f.uploadedPath())); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadDir(filepath.Dir(filepath.Dir(f.uploadedPath())))
		_, err := Run(testContext(t), cfg)
		if err == nil || !strings.Contains(err.Error(), "is not what its signed release holds") {
			t.Fatalf("Run with a changed cached binary = %v, want a refusal", err)
		}
		t.Logf("refused: %v", err)
		if _, err := os.Stat(cached); !os.IsNotExist(err) {
			t.Error("the changed binary is still cached")
		}
		if after, _ := os.ReadDir(filepath.Dir(filepath.Dir(f.uploadedPath()))); len(after) != len(before) {
			t.Errorf("something was uploaded: %d entries, then %d", len(before), len(after))
		}
	})
}

// TestRunUploadFromDist is TestRunUploadOtherPlatform with the real
// release: a GoReleaser snapshot in $GOSH_DIST (make release-check runs
// it). The linux/arm64 archive is fetched over HTTP, verified and
// uploaded (it cannot run on this machine, so the start then fails with a
// clear error), and a tampered copy is refused.
func TestRunUploadFromDist(t *testing.T) {
	dist := os.Getenv("GOSH_DIST")
	if dist == "" {
		t.Skip("needs a GoReleaser snapshot: make release-check runs this test")
	}
	var meta struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(dist, "metadata.json")); err != nil || json.Unmarshal(b, &meta) != nil {
		t.Fatalf("reading %s/metadata.json: %v", dist, err)
	}
	defer func(v string) { buildinfo.Version = v }(buildinfo.Version)
	buildinfo.Version = meta.Version
	name := ArchiveName("linux", "arm64")

	f := newUploadFixture(t)
	f.fake(t, "uname", `case "$1" in -s) echo Linux;; -m) echo aarch64;; *) /bin/uname "$@";; esac`+"\n")

	tampered := t.TempDir()
	for _, n := range []string{"checksums.txt", "checksums.txt.sig", name} {
		b, err := os.ReadFile(filepath.Join(dist, n))
		if err != nil {
			t.Fatal(err)
		}
		if n == name {
			b[len(b)/2] ^= 1
		}
		writeFile(t, filepath.Join(tampered, n), string(b))
	}
	src, _ := serveRelease(t, tampered)
	var logs, stderr syncBuffer
	cfg := f.cfg(&logs, &stderr)
	cfg.BinaryCache = filepath.Join(f.h.dir, "empty-cache")
	cfg.Release = src
	var re *ReleaseError
	if _, err := Run(testContext(t), cfg); !errors.As(err, &re) || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("Run with a tampered archive = %v, want a ReleaseError", err)
	}

	src, requests := serveRelease(t, dist)
	cfg.Release = src
	_, err := Run(testContext(t), cfg)
	var se *ServerError
	if !errors.As(err, &se) {
		t.Fatalf("Run = %v, want a ServerError (an arm64 gosh cannot run here)", err)
	}
	if got := requests(); !slices.Equal(got, []string{"/checksums.txt", "/checksums.txt.sig", "/" + name}) {
		t.Errorf("requests %q", got)
	}
	cached := filepath.Join(cfg.BinaryCache, "gosh-linux-arm64")
	sum, err := fileSHA256(cached)
	if err != nil {
		t.Fatalf("nothing cached: %v", err)
	}
	uploaded := filepath.Join(f.remoteHome, ".local", "share", "gosh", sum, "gosh")
	if got, err := fileSHA256(uploaded); err != nil || got != sum {
		t.Errorf("uploaded %s: %s, %v; want the verified arm64 binary %s", uploaded, got, err, sum)
	}
}

// variantBinary writes a copy of the test's gosh with bytes appended: a
// build of another version as far as the remote can tell (another
// SHA-256), which still runs.
func variantBinary(t *testing.T, f *uploadFixture, name string) (path, sum string) {
	t.Helper()
	b, err := os.ReadFile(f.gosh)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, "variant "+name...)
	path = filepath.Join(t.TempDir(), "gosh")
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path, sha256Hex(b)
}

// stopServer kills a server started on the remote and waits until it is
// gone from the process table's command lines.
func stopServer(t *testing.T, pid int) {
	t.Helper()
	syscall.Kill(pid, syscall.SIGKILL)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if (err != nil || len(b) == 0) && syscall.Kill(pid, 0) != nil || err == nil && len(b) == 0 {
			return
		}
	}
	t.Fatalf("server %d still runs", pid)
}

// TestRunUploadPrunes: clients of different versions take turns on one
// remote, through a real sshd. Each upload keeps itself and the upload
// used before it, and removes older ones, except one whose server still
// runs (it runs that binary again for a relay) and one used within the
// grace period; running an upload marks it used. (It is long because the
// turns depend on each other: it is one story.)
func TestRunUploadPrunes(t *testing.T) {
	f := newUploadFixture(t)
	root := filepath.Join(f.remoteHome, ".local", "share", "gosh")
	old1 := oldUpload(t, root, "old1", 3*time.Hour)
	oldUpload(t, root, "old2", 5*time.Hour)
	sumA, _ := fileSHA256(f.gosh)
	connect := func(binary string) Result {
		t.Helper()
		var logs, stderr syncBuffer
		cfg := f.cfg(&logs, &stderr)
		cfg.RemoteBinary = binary
		res, err := Run(testContext(t), cfg)
		if err != nil {
			t.Fatalf("Run: %v\n%s", err, logs.String())
		}
		killServer(t, res.ServerPID) // at the end, if not before
		return res
	}
	holds := func(step string, want ...string) {
		t.Helper()
		slices.Sort(want)
		if got := dirNames(t, root); !slices.Equal(got, want) {
			t.Errorf("%s: the remote holds %q, want %q", step, got, want)
		}
	}

	// A uploads: old2 goes, old1 was used before A and stays.
	a := connect(f.gosh)
	if a.Uploaded == "" {
		t.Fatal("A uploaded nothing")
	}
	holds("A uploaded", sumA, old1)

	// B uploads while A's server runs: A's upload is older than old1 and
	// the grace period, but A's server may need it.
	backdate(t, filepath.Join(root, sumA), 4*time.Hour)
	backdate(t, filepath.Join(root, old1), 3*time.Hour)
	binB, sumB := variantBinary(t, f, "B")
	connect(binB)
	holds("B uploaded while A's server runs", sumB, old1, sumA)

	// A connects again: no upload, and its upload is marked used.
	stopServer(t, a.ServerPID)
	backdate(t, filepath.Join(root, sumA), 4*time.Hour)
	if a2 := connect(f.gosh); a2.Uploaded != "" {
		t.Errorf("A uploaded again: %s", a2.Uploaded)
	} else {
		stopServer(t, a2.ServerPID)
	}
	if st, err := os.Stat(filepath.Join(root, sumA)); err != nil || time.Since(st.ModTime()) > time.Minute {
		t.Errorf("A's upload was not marked used: %v %v", st.ModTime(), err)
	}

	// C uploads once no server of A runs, with A's upload and old1 past
	// the grace period: both go; B's, within it, stays.
	backdate(t, filepath.Join(root, sumA), 4*time.Hour)
	binC, sumC := variantBinary(t, f, "C")
	connect(binC)
	holds("C uploaded", sumC, sumB)
	if left, _ := filepath.Glob(filepath.Join(root, ".gosh-old.*")); len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
}
