package bootstrap

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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

func TestMain(m *testing.M) {
	code := m.Run()
	if goshBuild.dir != "" {
		os.RemoveAll(goshBuild.dir)
	}
	os.Exit(code)
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
}

func newUploadFixture(t testing.TB) *uploadFixture {
	for _, p := range []string{"/usr/bin/gosh", "/bin/gosh"} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s exists; the upload tests need a remote PATH without gosh", p)
		}
	}
	f := &uploadFixture{h: newTestHome(t), remoteHome: t.TempDir(), fakeBin: t.TempDir(), gosh: buildGosh(t)}
	f.s = startSSHD(t, sshdOptions{authorized: []string{f.h.key + ".pub"}, remoteHome: f.remoteHome,
		path: f.fakeBin + ":/usr/bin:/bin"})
	f.h.trust(t, f.s)
	return f
}

func (f *uploadFixture) uploadedPath() string {
	return filepath.Join(f.remoteHome, ".local", "share", "gosh", versionDirName(), "gosh")
}

func (f *uploadFixture) cfg(logs *syncBuffer, stderr *syncBuffer) Config {
	cfg := f.h.cfg("root@" + f.s.addr())
	cfg.ServerCommand = ""
	cfg.Upload = UploadAuto
	cfg.LocalBinary = f.gosh
	cfg.BinaryCache = filepath.Join(f.h.dir, "empty-cache")
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

func TestRunSelfUpload(t *testing.T) {
	f := newUploadFixture(t)
	var logs, stderr syncBuffer
	_, using := runGosh(t, f.cfg(&logs, &stderr), &logs)
	if !strings.Contains(stderr.String(), "uploading gosh "+buildinfo.Version) {
		t.Errorf("stderr %q does not announce the upload", stderr.String())
	}
	if using != f.uploadedPath() {
		t.Errorf("the start script ran %q, want the uploaded %q", using, f.uploadedPath())
	}
	checkUploaded(t, f)
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

func TestRunUploadOtherPlatform(t *testing.T) {
	f := newUploadFixture(t)
	// The remote claims to be riscv64: the running binary does not fit.
	f.fake(t, "uname", `case "$1" in -s) echo Linux;; -m) echo riscv64;; *) /bin/uname "$@";; esac`+"\n")
	var logs, stderr syncBuffer
	cfg := f.cfg(&logs, &stderr)
	_, err := Run(testContext(t), cfg)
	var nb *NoBinaryError
	if !errors.As(err, &nb) || nb.GOARCH != "riscv64" || !strings.Contains(err.Error(), "gosh-linux-riscv64") {
		t.Fatalf("Run = %v, want a NoBinaryError naming gosh-linux-riscv64", err)
	}
	if _, err := os.Stat(f.uploadedPath()); err == nil {
		t.Errorf("something was uploaded")
	}

	t.Run("from the cache", func(t *testing.T) {
		// A cached binary for that platform is taken (this one is really
		// amd64, so it still runs here).
		b, err := os.ReadFile(f.gosh)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(cfg.BinaryCache, "gosh-linux-riscv64"), string(b))
		logs, stderr := &syncBuffer{}, &syncBuffer{}
		cfg := f.cfg(logs, stderr)
		runGosh(t, cfg, logs)
		if !strings.Contains(stderr.String(), "for linux/riscv64") {
			t.Errorf("stderr %q does not announce a linux/riscv64 upload", stderr.String())
		}
		checkUploaded(t, f)
	})
}
