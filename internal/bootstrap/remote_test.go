package bootstrap

import (
	"slices"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/ssp"
)

func TestServerArgv(t *testing.T) {
	tests := []struct {
		name string
		a    ServerArgs
		want string
	}{
		{"defaults", ServerArgs{}, "new -s"},
		{"mosh's wrapper", ServerArgs{Colors: 256, Locale: []string{"LANG=en_US.UTF-8", "LC_ALL=C"}},
			"new -c 256 -s -l LANG=en_US.UTF-8 -l LC_ALL=C"},
		{"bind any, port range", ServerArgs{Bind: "any", Ports: netaddr.Ports(60001, 60010)}, "new -p 60001:60010"},
		{"bind ip, verbose", ServerArgs{Bind: "::1", Verbose: 2}, "new -i ::1 -v -v"},
		{"command", ServerArgs{Command: []string{"tmux", "new", "-A"}}, "new -s -- tmux new -A"},
		{"Mosh's pacing", ServerArgs{Pacing: ssp.PacingMosh, Command: []string{"sh"}}, "new -s --pacing=mosh -- sh"},
		{"agent", ServerArgs{ForwardAgent: true, Command: []string{"sh"}}, "new -s --forward-agent -- sh"},
	}
	for _, tc := range tests {
		if got := strings.Join(serverArgv(tc.a), " "); got != tc.want {
			t.Errorf("%s: serverArgv = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got, want := serverCommandLine("mosh-server", ServerArgs{Command: []string{"echo", "a b"}}), "mosh-server new -s -- echo 'a b'"; got != want {
		t.Errorf("serverCommandLine = %q, want %q", got, want)
	}
}

func TestPlatform(t *testing.T) {
	tests := []struct{ s, m, goos, goarch string }{
		{"Linux", "x86_64", "linux", "amd64"},
		{"Linux", "aarch64", "linux", "arm64"},
		{"Darwin", "arm64", "darwin", "arm64"},
		{"FreeBSD", "amd64", "freebsd", "amd64"},
		{"Linux", "armv7l", "linux", "arm"},
		{"Linux", "i686", "linux", "386"},
		{"Linux", "riscv64", "linux", "riscv64"},
		{"SunOS", "i86pc", "solaris", "386"},
		{"CYGWIN_NT-10.0", "x86_64", "", ""},
		{"Linux", "sparc64", "", ""},
	}
	for _, tc := range tests {
		goos, goarch, ok := platform(tc.s, tc.m)
		if goos != tc.goos || goarch != tc.goarch || ok != (tc.goos != "") {
			t.Errorf("platform(%q, %q) = %s/%s %v, want %s/%s", tc.s, tc.m, goos, goarch, ok, tc.goos, tc.goarch)
		}
	}
}

func TestSplitShellWords(t *testing.T) {
	got, err := splitShellWords(`ssh -p 2222 -o "ProxyCommand=nc %h %p" -i 'my key' a\ b`)
	want := []string{"ssh", "-p", "2222", "-o", "ProxyCommand=nc %h %p", "-i", "my key", "a b"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("splitShellWords = %q, %v; want %q", got, err, want)
	}
	if _, err := splitShellWords(`ssh "open`); err == nil {
		t.Errorf("unterminated quote accepted")
	}
}
