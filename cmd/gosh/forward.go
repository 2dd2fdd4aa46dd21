package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/socks"
)

// forwardSpec is one -L or -D option: a local listening address and, for
// -L, the destination on the server's side.
type forwardSpec struct {
	flag   string // "-L" or "-D"
	arg    string // as given
	listen string // host:port to listen on
	dest   string // host:port on the server's side; "" for -D (SOCKS)
}

// parseLocalForward parses -L [bind_address:]port:host:hostport, as ssh
// does (IPv6 addresses in brackets). Without a bind address it listens on
// the loopback address only.
func parseLocalForward(s string) (forwardSpec, error) {
	f := splitForward(s)
	var bind, port, host, hostport string
	switch len(f) {
	case 3:
		port, host, hostport = f[0], f[1], f[2]
	case 4:
		bind, port, host, hostport = f[0], f[1], f[2], f[3]
	default:
		return forwardSpec{}, fmt.Errorf("bad -L %q: want [bind_address:]port:host:hostport", s)
	}
	listen, err := listenAddr(bind, port)
	if err != nil {
		return forwardSpec{}, fmt.Errorf("bad -L %q: %v", s, err)
	}
	if host == "" || strings.ContainsAny(host, " \t") {
		return forwardSpec{}, fmt.Errorf("bad -L %q: bad host %q", s, host)
	}
	if _, err := strconv.ParseUint(hostport, 10, 16); err != nil || hostport == "0" {
		return forwardSpec{}, fmt.Errorf("bad -L %q: bad port %q", s, hostport)
	}
	return forwardSpec{flag: "-L", arg: s, listen: listen, dest: net.JoinHostPort(host, hostport)}, nil
}

// parseRemoteForward parses -R [bind_address:]port:host:hostport: the
// server listens on bind_address:port (its loopback address without one)
// and the client connects to host:hostport.
func parseRemoteForward(s string) (forwardSpec, error) {
	sp, err := parseLocalForward(s)
	if err != nil {
		return forwardSpec{}, errors.New(strings.Replace(err.Error(), "-L", "-R", 1))
	}
	sp.flag = "-R"
	return sp, nil
}

// parseDynamicForward parses -D [bind_address:]port.
func parseDynamicForward(s string) (forwardSpec, error) {
	f := splitForward(s)
	var bind, port string
	switch len(f) {
	case 1:
		port = f[0]
	case 2:
		bind, port = f[0], f[1]
	default:
		return forwardSpec{}, fmt.Errorf("bad -D %q: want [bind_address:]port", s)
	}
	listen, err := listenAddr(bind, port)
	if err != nil {
		return forwardSpec{}, fmt.Errorf("bad -D %q: %v", s, err)
	}
	return forwardSpec{flag: "-D", arg: s, listen: listen}, nil
}

// splitForward splits a forwarding spec at colons outside brackets, and
// drops the brackets.
func splitForward(s string) []string {
	var parts []string
	var cur strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == ':' && depth == 0:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(parts, cur.String())
}

// listenAddr is bind:port to listen on: bind "" is the loopback address,
// "*" every address.
func listenAddr(bind, port string) (string, error) {
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return "", fmt.Errorf("bad port %q", port)
	}
	switch bind {
	case "", "localhost":
		bind = "127.0.0.1"
	case "*":
		bind = ""
	}
	return net.JoinHostPort(bind, port), nil
}

// remoteForwards are the -R options of specs.
func remoteForwards(specs []forwardSpec) []session.RemoteForward {
	var out []session.RemoteForward
	for _, sp := range specs {
		if sp.flag == "-R" {
			out = append(out, session.RemoteForward{Name: sp.flag + " " + sp.arg, Listen: sp.listen, Dest: sp.dest})
		}
	}
	return out
}

// dialTCP connects to a -R destination.
func dialTCP(hostPort string) (io.ReadWriteCloser, error) {
	return net.DialTimeout("tcp", hostPort, 10*time.Second)
}

// listenForwards opens the listeners of the -L and -D options of specs
// before the session starts. As ssh does, a port it cannot listen on is
// a warning on stderr, and the session goes on without it.
func listenForwards(specs []forwardSpec, stderr io.Writer) []session.Forward {
	var out []session.Forward
	for _, sp := range specs {
		if sp.flag == "-R" {
			continue
		}
		ln, err := net.Listen("tcp", sp.listen)
		if err != nil {
			fmt.Fprintf(stderr, "gosh: %s %s: %v; not forwarding it\n", sp.flag, sp.arg, err)
			continue
		}
		dest := sp.dest
		target := func(io.ReadWriteCloser) (string, error) { return dest, nil }
		if dest == "" {
			target = func(c io.ReadWriteCloser) (string, error) { return socks.Handshake(c) }
		}
		out = append(out, session.Forward{Name: sp.flag + " " + sp.arg, Listener: tcpListener{ln}, Target: target})
	}
	return out
}

// tcpListener is a net.Listener as a session.Listener.
type tcpListener struct{ net.Listener }

func (l tcpListener) Accept() (io.ReadWriteCloser, error) { return l.Listener.Accept() }
