package main

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/gosh-term/gosh/internal/bootstrap"
	"github.com/gosh-term/gosh/internal/netaddr"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/ssp"
)

// TestEnumFlags pins what the enumerated flag values show and accept:
// each type's name in the help, its zero value (the documented default),
// the names Set takes, the exact error for one it does not, and the
// String of a value out of range.
func TestEnumFlags(t *testing.T) {
	tests := []struct {
		name     string
		value    func() pflag.Value // a new zero value
		out      func(int) string   // String of the value n, perhaps out of range
		typ, def string
		ok       map[string]string // what Set takes -> String after
		bad      string
		badErr   string
		outOf    string // String of value 9
	}{
		{"predict", func() pflag.Value { return new(predict.Mode) }, func(n int) string { return predict.Mode(n).String() },
			"mode", "adaptive",
			map[string]string{"adaptive": "adaptive", "always": "always", "never": "never", "experimental": "experimental"},
			"Always", `predict: unknown prediction mode "Always": want one of adaptive, always, never, experimental`, "Mode(9)"},
		{"pacing", func() pflag.Value { return new(ssp.Pacing) }, func(n int) string { return ssp.Pacing(n).String() },
			"pacing", "gosh", map[string]string{"gosh": "gosh", "mosh": "mosh"},
			"fast", `unknown pacing "fast": want one of gosh, mosh`, "Pacing(9)"},
		{"transport", func() pflag.Value { return new(session.TransportMode) }, func(n int) string { return session.TransportMode(n).String() },
			"transport", "auto", map[string]string{"auto": "auto", "udp": "udp", "tcp": "tcp"},
			"UDP", `unknown transport "UDP": want one of auto, udp, tcp`, "TransportMode(9)"},
		{"upload", func() pflag.Value { return new(bootstrap.UploadMode) }, func(n int) string { return bootstrap.UploadMode(n).String() },
			"mode", "auto", map[string]string{"auto": "auto", "never": "never", "always": "always"},
			"", `bad upload mode "" (want auto, never or always)`, "UploadMode(9)"},
		{"remote IP", func() pflag.Value { return new(bootstrap.RemoteIP) }, func(n int) string { return bootstrap.RemoteIP(n).String() },
			"mode", "proxy", map[string]string{"proxy": "proxy", "local": "local", "remote": "remote"},
			"Proxy", `bad remote IP mode "Proxy" (want proxy, local or remote)`, "RemoteIP(9)"},
		{"family", func() pflag.Value { return new(netaddr.Family) }, func(n int) string { return netaddr.Family(n).String() },
			"family", "any",
			map[string]string{"any": "any", "auto": "any", "all": "any", "inet": "inet", "inet6": "inet6",
				"prefer-inet": "prefer-inet", "prefer-inet6": "prefer-inet6"},
			"INET", `bad address family "INET" (want inet, inet6, auto, all, prefer-inet or prefer-inet6)`, "Family(9)"},
		{"tcp forwarding", func() pflag.Value { return new(session.TCPForwarding) }, func(n int) string { return session.TCPForwarding(n).String() },
			"yes|local|remote|no", "yes",
			map[string]string{"yes": "yes", "local": "local", "remote": "remote", "no": "no", "YES": "yes", "Local": "local"},
			"all", `bad value "all" (want yes, local, remote, no)`, "TCPForwarding(9)"},
		{"gateway ports", func() pflag.Value { return new(session.GatewayPorts) }, func(n int) string { return session.GatewayPorts(n).String() },
			"no|clientspecified|yes", "no",
			map[string]string{"no": "no", "clientspecified": "clientspecified", "yes": "yes", "ClientSpecified": "clientspecified"},
			"maybe", `bad value "maybe" (want no, clientspecified, yes)`, "GatewayPorts(9)"},
		{"agent forwarding", func() pflag.Value { return new(session.AgentForwarding) }, func(n int) string { return session.AgentForwarding(n).String() },
			"yes|no", "yes", map[string]string{"yes": "yes", "no": "no", "No": "no"},
			"", `bad value "" (want yes, no)`, "AgentForwarding(9)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.value()
			if got := v.Type(); got != tc.typ {
				t.Errorf("Type() = %q, want %q", got, tc.typ)
			}
			if got := v.String(); got != tc.def {
				t.Errorf("zero value's String() = %q, want %q", got, tc.def)
			}
			for in, want := range tc.ok {
				v := tc.value()
				if err := v.Set(in); err != nil || v.String() != want {
					t.Errorf("Set(%q) = %v, String() = %q; want nil, %q", in, err, v.String(), want)
				}
			}
			v = tc.value()
			for in := range tc.ok {
				if err := v.Set(in); err != nil {
					t.Fatal(err)
				}
				break
			}
			before := v.String()
			if err := v.Set(tc.bad); err == nil || err.Error() != tc.badErr {
				t.Errorf("Set(%q) = %v, want %q", tc.bad, err, tc.badErr)
			}
			if v.String() != before {
				t.Errorf("a failed Set(%q) changed the value from %q to %q", tc.bad, before, v.String())
			}
			if got := tc.out(9); got != tc.outOf {
				t.Errorf("String() of 9 = %q, want %q", got, tc.outOf)
			}
		})
	}
}
