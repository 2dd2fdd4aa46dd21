package sshconfig

import (
	"strings"
	"testing"
)

func TestParseDestination(t *testing.T) {
	tests := []struct {
		in   string
		want Destination
		err  bool
	}{
		{in: "host", want: Destination{Host: "host"}},
		{in: "alice@host", want: Destination{User: "alice", Host: "host"}},
		{in: "alice@host:2222", want: Destination{User: "alice", Host: "host", Port: 2222}},
		{in: "a@b@host", want: Destination{User: "a@b", Host: "host"}},
		{in: "[::1]:2222", want: Destination{Host: "::1", Port: 2222}},
		{in: "root@[::1]", want: Destination{User: "root", Host: "::1"}},
		{in: "fe80::1", want: Destination{Host: "fe80::1"}},
		{in: "ssh://bob@example.org:2200", want: Destination{User: "bob", Host: "example.org", Port: 2200}},
		{in: "ssh://[::1]", want: Destination{Host: "::1"}},
		{in: "host:0", err: true},
		{in: "host:99999", err: true},
		{in: "host:ssh", err: true},
		{in: "@host", err: true},
		{in: "", err: true},
		{in: "-oProxyCommand=evil", err: true},
		{in: "host;rm", err: true},
		{in: "ssh://host/path", err: true},
	}
	for _, tc := range tests {
		got, err := ParseDestination(tc.in)
		if (err != nil) != tc.err || err == nil && got != tc.want {
			t.Errorf("ParseDestination(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// TestCheckJump: a jump list is "none" or destinations separated by
// commas, each checked as a destination.
func TestCheckJump(t *testing.T) {
	if err := CheckJump("none"); err != nil {
		t.Errorf("CheckJump(none) = %v", err)
	}
	if err := CheckJump("alice@gw:2222,ssh://[::1]:22"); err != nil {
		t.Errorf("CheckJump of two hops = %v", err)
	}
	for _, bad := range []string{"-oProxyCommand=x", "gw,"} {
		if err := CheckJump(bad); err == nil || !strings.Contains(err.Error(), "jump host") {
			t.Errorf("CheckJump(%q) = %v, want an error naming the jump host", bad, err)
		}
	}
}

// TestCommandLineErrors: a bad jump list, a file-only keyword or an
// empty identity file name on the command line is an error.
func TestCommandLineErrors(t *testing.T) {
	for _, bad := range []struct {
		jump       string
		identities []string
		options    []string
	}{{jump: "-oProxyCommand=x"}, {jump: "gw,"}, {options: []string{"Host x"}}, {identities: []string{""}}} {
		if _, err := CommandLine(bad.jump, bad.identities, bad.options); err == nil {
			t.Errorf("CommandLine(%+v): no error", bad)
		}
	}
}

// TestDestinationInjection: user and host names from the command line that
// a shell or ssh's option parser would read as something else are refused
// (OpenSSH 9.6's rules, CVE-2023-51385).
func TestDestinationInjection(t *testing.T) {
	for _, in := range []string{
		"$(touch X)@example.com", "`id`@example.com", "a;b@example.com", "a|b@example.com",
		"a&b@example.com", "a<b@example.com", "a>b@example.com", "a'b@example.com", `a"b@example.com`,
		"a(b@example.com", "a{b}@example.com", "-oProxyCommand=x@example.com", "a -oX@example.com",
		"a\tb@example.com", "a\nb@example.com", "a\\@example.com", "ssh://-oProxyCommand=x@example.com",
		"ssh://%24%28id%29@example.com",
		"alice@ex(ample.com", "alice@ex{ample.com", "alice@a,b", "alice@-oProxyCommand=x",
	} {
		if d, err := ParseDestination(in); err == nil {
			t.Errorf("ParseDestination(%q) = %+v, want an error", in, d)
		}
	}
	for _, in := range []string{"alice@example.com", "first.last@example.com", "DOMAIN\\user@example.com",
		"host$@example.com", "a-b_c+d@example.com", "ssh://bob@example.com"} {
		if _, err := ParseDestination(in); err != nil {
			t.Errorf("ParseDestination(%q): %v, want it accepted", in, err)
		}
	}
}

func FuzzParseDestination(f *testing.F) {
	for _, s := range []string{"host", "alice@host:2222", "[::1]:22", "root@[fe80::1%eth0]", "fe80::1", "ssh://bob@[::1]:2200", "SSH://h", "ssh://h/", "a@b@c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDestination(s)
		if err != nil {
			return
		}
		if checkHostName(d.Host) != nil || d.User != "" && checkUserName(d.User) != nil || d.Port < 0 || d.Port > 65535 {
			t.Fatalf("ParseDestination(%q) = %+v: a bad part got through", s, d)
		}
		// Its string form reads back as the same destination.
		again, err := ParseDestination(d.String())
		if err != nil || again != d {
			t.Fatalf("ParseDestination(%q) = %+v, whose form %q reads back as %+v, %v", s, d, d.String(), again, err)
		}
	})
}
