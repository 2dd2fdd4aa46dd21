//go:build unix

// The remote side is a POSIX shell whatever the client runs; these tests
// run its scripts through the local /bin/sh, which Windows lacks.

package bootstrap

import (
	"bytes"
	"cmp"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestShellQuoteRoundTrip(t *testing.T) {
	words := []string{"", "plain", "two words", "it's", `"double"`, "$HOME", "`id`", "a\nb", "back\\slash", "*?[]", "!bang", "LANG=en_US.UTF-8"}
	var line strings.Builder
	line.WriteString("printf '%s\\0'")
	for _, w := range words {
		line.WriteString(" " + shellQuote(w))
	}
	out, err := exec.Command("/bin/sh", "-c", line.String()).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, words) {
		t.Errorf("sh saw %q, want %q", got, words)
	}
}

func TestStartScriptIsOneLine(t *testing.T) {
	// The script goes through the user's login shell: one line, no '!'
	// (csh history), and valid for sh.
	for _, upload := range []UploadMode{UploadAuto, UploadNever, UploadAlways} {
		for _, s := range []string{startScript(DefaultServerCommand, ServerArgs{Command: []string{"it's"}}, upload, strings.Repeat("ab", 32)), uploadScript("ab12", false), uploadScript("ab12", true)} {
			if strings.ContainsAny(s, "\n!") {
				t.Errorf("script has a newline or '!': %s", s)
			}
			if out, err := exec.Command("/bin/sh", "-n", "-c", s).CombinedOutput(); err != nil {
				t.Errorf("sh -n: %v %s\n%s", err, out, s)
			}
		}
	}
}

// TestUploadScript feeds the upload script streams whole, truncated and
// corrupt, raw and gzip, through the local /bin/sh: only a whole stream of
// the right binary installs it, and nothing at all is left behind
// otherwise.
func TestUploadScript(t *testing.T) {
	bin := fakeBinary(256 << 10)
	gz := gzipBytes(t, bin)
	corrupt := bytes.Clone(gz)
	corrupt[len(corrupt)/2] ^= 0x55
	tests := []struct {
		name    string
		gzipped bool
		stdin   []byte
		wantErr string // the last line of stderr has it; "" for an install
	}{
		{"raw", false, bin, ""},
		{"gzip", true, gz, ""},
		{"raw truncated", false, bin[:len(bin)/2], "SHA-256 check failed"},
		{"raw empty", false, nil, "SHA-256 check failed"},
		{"gzip truncated", true, gz[:len(gz)/2], "receiving the upload failed (gzip: "},
		{"gzip without its trailer", true, gz[:len(gz)-8], "receiving the upload failed (gzip: "},
		{"gzip corrupt", true, corrupt, "receiving the upload failed (gzip: "},
		{"gzip empty", true, nil, "receiving the upload failed (gzip: "},
		{"not gzip", true, bin, "receiving the upload failed (gzip: "},
		{"gzip of another binary", true, gzipBytes(t, []byte("not gosh")), "SHA-256 check failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkUploadScript(t, os.Getenv("PATH"), bin, tc.gzipped, tc.stdin, tc.wantErr)
		})
	}
}

// TestUploadScriptHashTools: each SHA-256 tool the script may find checks
// the file's content (and not, say, its path, which holds the SHA-256).
func TestUploadScriptHashTools(t *testing.T) {
	bin := fakeBinary(64 << 10)
	base := []string{"sh", "mkdir", "cat", "rm", "chmod", "mv"}
	for _, tool := range []string{"sha256sum", "shasum", "openssl", ""} {
		t.Run(cmp.Or(tool, "none"), func(t *testing.T) {
			tools := base
			if tool != "" {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("no %s here", tool)
				}
				tools = append(slices.Clip(base), tool)
			}
			path := toolDir(t, tools...)
			if tool == "" {
				checkUploadScript(t, path, bin, false, bin, "SHA-256 check failed (got: no sha256 tool)")
				return
			}
			checkUploadScript(t, path, bin, false, bin, "")
			checkUploadScript(t, path, bin, false, bin[:len(bin)-1], "SHA-256 check failed")
		})
	}
}

// checkUploadScript runs the upload script of bin through the local
// /bin/sh with PATH path and stdin, and checks that it installs bin when
// wantErr is "", else fails with wantErr on the last line of its stderr;
// and that it leaves no temporary file behind.
func checkUploadScript(t *testing.T, path string, bin []byte, gzipped bool, stdin []byte, wantErr string) {
	t.Helper()
	home := t.TempDir()
	sum := sha256Hex(bin)
	cmd := exec.Command("/bin/sh", "-c", uploadScript(sum, gzipped))
	cmd.Env = []string{"HOME=" + home, "PATH=" + path}
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	dir := filepath.Join(home, ".local", "share", "gosh", sum)
	installed := filepath.Join(dir, "gosh")
	if left, _ := filepath.Glob(filepath.Join(dir, ".gosh-upload.*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %q", left)
	}
	if wantErr == "" {
		got, rerr := os.ReadFile(installed)
		if err != nil || rerr != nil || !bytes.Equal(got, bin) || stdout.String() != uploadedLine+" "+installed+"\n" {
			t.Errorf("upload script: %v, stdout %q, stderr %q, installed %d bytes (%v); want %d bytes installed",
				err, stdout.String(), stderr.String(), len(got), rerr, len(bin))
		}
		return
	}
	if _, serr := os.Stat(installed); serr == nil {
		t.Errorf("a binary was installed from a bad stream")
	}
	msg := lastLine(stderr.String())
	if err == nil || !strings.Contains(msg, wantErr) || stdout.Len() != 0 {
		t.Errorf("upload script: %v, stdout %q, last line of stderr %q; want a failure saying %q", err, stdout.String(), msg, wantErr)
	}
	if strings.Contains(wantErr, "receiving") && !strings.HasSuffix(msg, "nothing was installed") {
		t.Errorf("stderr %q does not say that nothing was installed", msg)
	}
}

// TestGzipProbe: the start script's probe stream is only octal escapes
// (safe in the script's printf and in any login shell's quotes) and
// decompresses to the probe word with the local gzip. The start script
// reports GOSH GZIP with a gzip on PATH and not without one.
func TestGzipProbe(t *testing.T) {
	p := gzipProbe()
	if !regexp.MustCompile(`^(\\[0-3][0-7][0-7])+$`).MatchString(p) {
		t.Fatalf("gzipProbe() = %q, want octal escapes only", p)
	}
	out, err := exec.Command("/bin/sh", "-c", "printf '"+p+"' | gzip -dc").Output()
	if err != nil || string(out) != gzipProbeWord {
		t.Errorf("the probe decompresses to %q (%v), want %q", out, err, gzipProbeWord)
	}
	script := startScript(DefaultServerCommand, ServerArgs{}, UploadAlways, "")
	for _, tc := range []struct {
		name string
		path string
		want bool
	}{
		{"gzip on PATH", os.Getenv("PATH"), true},
		{"no gzip", toolDir(t, "sh", "uname"), false},
		{"gzip that cannot decompress", fakeTool(t, toolDir(t, "sh", "uname"), "gzip", "exit 1"), false},
	} {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + tc.path}
		out, err := cmd.CombinedOutput()
		lines := strings.Split(string(out), "\n")
		if err != nil || !strings.HasPrefix(lines[0], needUploadPrefix) || slices.Contains(lines, gzipLine) != tc.want {
			t.Errorf("%s: start script: %v, output %q; want GOSH UPLOAD and GOSH GZIP %v, nothing else", tc.name, err, out, tc.want)
		}
		if len(lines) != 2+btoi(tc.want) {
			t.Errorf("%s: output %q has more lines than expected", tc.name, out)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// toolDir returns a directory of links to the named programs of PATH: a
// PATH with nothing else.
func toolDir(t testing.TB, tools ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range tools {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fakeTool writes an executable shell script named name into dir, and
// returns dir.
func fakeTool(t testing.TB, dir, name, script string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRelayScript: the relay's remote command is one line for any login
// shell, valid sh, and runs the gosh it names with exactly the relay's
// arguments however odd the path (a fake gosh prints its argv).
func TestRelayScript(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "it's $(id) `x` dir", "gosh")
	if err := os.MkdirAll(filepath.Dir(odd), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(odd, []byte("#!/bin/sh\nprintf '%s|' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gosh, bind, want string
	}{
		{odd, "", "server|relay|--port|60001|"},
		{odd, "192.0.2.7", "server|relay|--port|60001|--host|192.0.2.7|"},
		{odd, "any", "server|relay|--port|60001|"},
	} {
		s := relayScript(tc.gosh, 60001, tc.bind)
		if strings.ContainsAny(s, "\n!") {
			t.Errorf("script has a newline or '!': %s", s)
		}
		out, err := exec.Command("/bin/sh", "-c", s).CombinedOutput()
		if err != nil || string(out) != tc.want {
			t.Errorf("relayScript(%q, %q) ran %q, %v; want %q", tc.gosh, tc.bind, out, err, tc.want)
		}
	}
	// Without a gosh that started the server (a stock mosh-server), one on
	// PATH is used, else a clear error.
	s := relayScript("", 60001, "")
	cmd := exec.Command("/bin/sh", "-c", s)
	cmd.Env = []string{"PATH=" + filepath.Dir(odd) + ":/usr/bin:/bin", "HOME=" + dir}
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "server|relay|--port|60001|" {
		t.Errorf("gosh on PATH: ran %q, %v", out, err)
	}
	cmd = exec.Command("/bin/sh", "-c", s)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "the relay needs gosh on the remote") {
		t.Errorf("no gosh: ran %q, %v; want the error", out, err)
	}
}

// oldUpload makes an upload directory named by the SHA-256 of name in
// root, holding a gosh, last changed age ago, and returns its name.
func oldUpload(t *testing.T, root, name string, age time.Duration) string {
	t.Helper()
	sum := sha256Hex([]byte(name))
	dir := filepath.Join(root, sum)
	writeFile(t, filepath.Join(dir, "gosh"), "#!/bin/sh\n")
	backdate(t, dir, age)
	return sum
}

// backdate sets the times of dir and everything in it to age ago.
func backdate(t *testing.T, dir string, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// startWithArgv0 runs a sleep whose argv[0] is argv0 (as a server started
// from an upload carries its path), until the test ends.
func startWithArgv0(t *testing.T, argv0 string) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.Args[0] = argv0
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}

// TestPruneScript runs the upload script through the local /bin/sh into an
// upload directory holding older uploads: it keeps the new one, the one
// used before it, any used or changed within the grace period, any a
// running process was started from and any not named by a SHA-256, and
// removes the rest, leaving nothing behind. Without find, or with a find
// that does not know -mmin, it removes nothing.
func TestPruneScript(t *testing.T) {
	bin := fakeBinary(64 << 10)
	sum := sha256Hex(bin)
	hour := time.Hour
	for _, tc := range []struct {
		name   string
		path   string // "" for the test's PATH
		pruned bool
	}{
		{"pruned", "", true},
		{"no find", "no find", false},
		{"find without -mmin", "old find", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			root := filepath.Join(home, ".local", "share", "gosh")
			previous := oldUpload(t, root, "previous", 2*hour)
			old1 := oldUpload(t, root, "old1", 3*hour)
			old2 := oldUpload(t, root, "old2", 50*hour)
			running := oldUpload(t, root, "running", 5*hour)
			startWithArgv0(t, filepath.Join(root, running, "gosh"))
			uploading := oldUpload(t, root, "uploading", 4*hour)
			writeFile(t, filepath.Join(root, uploading, ".gosh-upload.123"), "half a binary") // now
			os.Chtimes(filepath.Join(root, uploading), time.Now().Add(-4*hour), time.Now().Add(-4*hour))
			recent := oldUpload(t, root, "recent", 4*hour)
			backdate(t, filepath.Join(root, recent, "gosh"), 10*time.Minute)
			writeFile(t, filepath.Join(root, "v0.9.0", "gosh"), "the layout before SHA-256 names")
			backdate(t, filepath.Join(root, "v0.9.0"), 100*hour)

			path := os.Getenv("PATH")
			switch tc.path {
			case "no find":
				path = toolDir(t, "sh", "mkdir", "cat", "rm", "chmod", "mv", "sha256sum", "ls", "tr", "ps")
			case "old find":
				path = fakeTool(t, toolDir(t, "sh", "mkdir", "cat", "rm", "chmod", "mv", "sha256sum", "ls", "tr", "ps"),
					"find", `for a; do [ "$a" = -mmin ] && { echo "find: unknown primary -mmin" >&2; exit 1; }; done; exit 0`)
			}
			cmd := exec.Command("/bin/sh", "-c", uploadScript(sum, false))
			cmd.Env = []string{"HOME=" + home, "PATH=" + path}
			cmd.Stdin = bytes.NewReader(bin)
			out, err := cmd.CombinedOutput()
			if want := uploadedLine + " " + filepath.Join(root, sum, "gosh") + "\n"; err != nil || string(out) != want {
				t.Fatalf("upload script: %v, output %q; want %q", err, out, want)
			}
			want := []string{sum, previous, running, uploading, recent, "v0.9.0"}
			if !tc.pruned {
				want = append(want, old1, old2)
			}
			slices.Sort(want)
			got := dirNames(t, root)
			if !slices.Equal(got, want) {
				t.Errorf("the upload directory holds %q, want %q (removed: old1 %s, old2 %s)", got, want, old1[:8], old2[:8])
			}
		})
	}
}

// TestUseUploadedMarks: the start script marks the upload it runs as used
// (its directory's time), and does not create a directory for one that
// is not there.
func TestUseUploadedMarks(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, ".local", "share", "gosh")
	sum := oldUpload(t, root, "used", 5*time.Hour)
	writeFile(t, filepath.Join(root, sum, "gosh"), "#!/bin/sh\necho used \"$@\"\n")
	os.Chmod(filepath.Join(root, sum, "gosh"), 0o755)
	backdate(t, filepath.Join(root, sum), 5*time.Hour)
	missing := sha256Hex([]byte("missing"))
	for _, want := range []string{sum, missing} {
		cmd := exec.Command("/bin/sh", "-c", startScript(DefaultServerCommand, ServerArgs{}, UploadAlways, want))
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		out, _ := cmd.CombinedOutput()
		if want == missing {
			if _, err := os.Stat(filepath.Join(root, missing)); err == nil {
				t.Errorf("the start script created %s", missing)
			}
			continue
		}
		if !strings.Contains(string(out), "used server new") {
			t.Fatalf("the start script did not run the upload: %q", out)
		}
		st, err := os.Stat(filepath.Join(root, sum))
		if err != nil || time.Since(st.ModTime()) > time.Minute {
			t.Errorf("the upload run was not marked used: %v, %v", st.ModTime(), err)
		}
	}
}

// TestProcessArgs: both ways the prune lists the running processes show
// a process's arguments whole, its argv[0] (a path) among them.
func TestProcessArgs(t *testing.T) {
	argv0 := filepath.Join(t.TempDir(), strings.Repeat("long/", 40), sha256Hex([]byte("argv0")), "gosh")
	startWithArgv0(t, argv0)
	for _, c := range []string{procArgs, psArgs} {
		out, err := exec.Command("/bin/sh", "-c", c).Output()
		if err != nil || !strings.Contains(string(out), argv0+" 600") {
			t.Errorf("%s: %v; the output does not hold %q", c, err, argv0+" 600")
		}
	}
}
