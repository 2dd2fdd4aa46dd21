//go:build unix

package bootstrap

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/buildinfo"
)

// hostileWords are arguments a shell would read as something else.
var hostileWords = []string{"list", "it's", "$(touch X)", "`id`", "a;b", "two words", "*", "--json", "", "\\"}

// TestCommandScript runs RunCommand's remote script through the local
// /bin/sh: it runs the right gosh (on PATH if it speaks this protocol,
// else the uploaded one) with the arguments intact, and says when there
// is none. It is long because each case adds one gosh to the remote of
// the case before.
func TestCommandScript(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	for _, s := range []string{commandScript(DefaultServerCommand, hostileWords, sum), commandScript("mosh-server", hostileWords, "")} {
		if strings.ContainsAny(s, "\n!") {
			t.Errorf("script has a newline or '!': %s", s)
		}
	}
	// gosh prints its name and arguments, NUL-terminated; "gosh version"
	// names a protocol.
	fakeGosh := func(dir, name string, proto int) string {
		path := filepath.Join(dir, "gosh")
		os.MkdirAll(dir, 0o755)
		script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = version ]; then echo 'gosh x (mosh protocol %d, linux/amd64, go)'; exit 0; fi\nprintf '%%s\\0' %s \"$@\"\n", proto, name)
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tools := t.TempDir()
	for _, tool := range []string{"sh", "grep", "printf"} {
		if p, err := exec.LookPath(tool); err == nil {
			os.Symlink(p, filepath.Join(tools, tool))
		}
	}
	run := func(t *testing.T, path, data string, want ...string) {
		t.Helper()
		dir := t.TempDir()
		cmd := exec.Command("/bin/sh", "-c", commandScript(DefaultServerCommand, hostileWords, sum))
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + path, "HOME=" + dir, "XDG_DATA_HOME=" + data}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("script: %v", err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if !slices.Equal(got, want) {
			t.Errorf("ran %q, want %q", got, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "X")); err == nil {
			t.Error("an argument ran a command")
		}
	}
	args := append([]string{"server"}, hostileWords...)
	data := t.TempDir()
	t.Run("none", func(t *testing.T) { run(t, tools, data, noGoshLine+"\n") })
	fakeGosh(filepath.Join(data, "gosh", strings.Repeat("cd", 32)), "other-upload", buildinfo.MoshProtocolVersion)
	t.Run("another upload", func(t *testing.T) { run(t, tools, data, append([]string{"other-upload"}, args...)...) })
	fakeGosh(filepath.Join(data, "gosh", sum), "upload", buildinfo.MoshProtocolVersion)
	t.Run("this upload", func(t *testing.T) { run(t, tools, data, append([]string{"upload"}, args...)...) })
	old := t.TempDir()
	fakeGosh(old, "old", buildinfo.MoshProtocolVersion+1)
	t.Run("PATH speaks another protocol", func(t *testing.T) { run(t, old+":"+tools, data, append([]string{"upload"}, args...)...) })
	onPath := t.TempDir()
	fakeGosh(onPath, "path", buildinfo.MoshProtocolVersion)
	t.Run("PATH", func(t *testing.T) { run(t, onPath+":"+tools, data, append([]string{"path"}, args...)...) })

	// A custom server command runs as given, the arguments quoted.
	custom := filepath.Join(t.TempDir(), "server")
	os.WriteFile(custom, []byte("#!/bin/sh\nprintf '%s\\0' \"$@\"\n"), 0o755)
	out, err := exec.Command("/bin/sh", "-c", commandScript(custom+" sub", hostileWords, "")).Output()
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); err != nil || !slices.Equal(got, append([]string{"sub"}, hostileWords...)) {
		t.Errorf("custom server ran %q (%v)", got, err)
	}
}

func TestCheckCommandArgs(t *testing.T) {
	if err := checkCommandArgs(hostileWords); err != nil {
		t.Errorf("refused %q: %v", hostileWords, err)
	}
	for _, bad := range []string{"a\nb", "a\rb", "!1"} {
		if err := checkCommandArgs([]string{"kill", bad}); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestCommandError(t *testing.T) {
	e := &CommandError{Status: 1, Stderr: "warning\ngosh: no session \x1b[2Jabc on this host\n\n"}
	if got := e.Error(); got != "gosh: no session [2Jabc on this host" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&CommandError{Status: 3}).Error(); !strings.Contains(got, "exit status 3") {
		t.Errorf("Error() without stderr = %q", got)
	}
	var ce *CommandError
	if !errors.As(error(e), &ce) {
		t.Error("not a *CommandError")
	}
}

func TestAttachArgv(t *testing.T) {
	got := serverCommandLine(DefaultServerCommand, ServerArgs{Attach: "0123abcd", Colors: 256, Command: []string{"x"}})
	if got != "gosh server attach 0123abcd" {
		t.Errorf("attach command line = %q", got)
	}
	if s := startScript(DefaultServerCommand, ServerArgs{Attach: "0123abcd"}, UploadAuto, ""); !strings.Contains(s, `exec "$g" server attach 0123abcd`) {
		t.Errorf("start script does not attach: %s", s)
	}
}
