package sshconfig

import (
	"slices"
	"testing"
)

// TestMatchExecInjected: Match exec runs through Resolver.Exec, with the
// %-tokens of the host being resolved, each quoted as one word by
// Resolver.Quote (POSIX shell quoting when nil); its result decides the
// match; a command runs only while the line's earlier criteria hold, and
// never from a file included by an inactive block.
func TestMatchExecInjected(t *testing.T) {
	files := map[string]string{
		"/home/u/.ssh/config": `Host web
  HostName real.example.org
  User "al ice"
  Port 2200
Host other
  Include inactive
Match exec "check %h %p %r %n %u %d"
  IdentityFile ~/matched
Match host nomatch exec "never-after-a-failed-criterion"
  IdentityFile ~/never
Match exec fails
  IdentityFile ~/false
Match !exec fails
  IdentityFile ~/negated
`,
		"/home/u/.ssh/inactive": "Match exec never-from-an-inactive-block\n  IdentityFile ~/inactive\n",
	}
	for _, tc := range []struct {
		name  string
		quote func(string) string
		want  string
	}{
		{"POSIX shell by default", nil, "check real.example.org 2200 'al ice' web local /home/u"},
		{"the caller's quoting", func(s string) string { return "<" + s + ">" },
			"check <real.example.org> <2200> <al ice> <web> <local> </home/u>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran []string
			r := testResolver(files)
			r.Quote = tc.quote
			r.Exec = func(command string) bool {
				ran = append(ran, command)
				return command != "fails"
			}
			p, err := r.Resolve(Destination{Host: "web"})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{tc.want, "fails", "fails"}; !slices.Equal(ran, want) {
				t.Errorf("ran %q, want %q", ran, want)
			}
			if got, want := slashed(p.IdentityFiles), []string{"/home/u/matched", "/home/u/negated"}; !slices.Equal(got, want) {
				t.Errorf("identity files %q, want %q", got, want)
			}
		})
	}
}
