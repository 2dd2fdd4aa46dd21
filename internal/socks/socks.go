// Package socks is the server side of a SOCKS5 handshake (RFC 1928) for
// dynamic port forwarding (gosh connect -D): it reads a client's greeting
// and CONNECT request from a connection and says where the client wants
// to go. Only CONNECT without authentication is offered, as ssh -D does
// for SOCKS5.
package socks

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
)

// Protocol constants of RFC 1928.
const (
	version5       = 5
	methodNoAuth   = 0
	methodNone     = 0xff
	cmdConnect     = 1
	atypIPv4       = 1
	atypDomain     = 3
	atypIPv6       = 4
	repSucceeded   = 0
	repNotAllowed  = 2
	repCmdNotSupp  = 7
	repAtypNotSupp = 8
)

// Errors of a handshake that cannot go on.
var (
	ErrVersion = errors.New("socks: not a SOCKS5 client")
	ErrAuth    = errors.New("socks: the client offers no method without authentication")
	ErrCommand = errors.New("socks: only CONNECT is supported")
	ErrAddress = errors.New("socks: bad address")
)

// Handshake reads the greeting and the request from rw and answers them.
// On success it returns the destination as host:port (a host name is
// passed on unresolved) and has told the client the connection succeeded:
// what follows on rw is the client's data. On failure it has sent the
// client the matching refusal, if the protocol has one.
//
// The reply is sent before the destination is reached, as the forwarding
// channel opens it on the far side; a destination that cannot be reached
// ends the connection instead.
func Handshake(rw io.ReadWriter) (string, error) {
	r := bufio.NewReaderSize(rw, 512)
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return "", fmt.Errorf("socks: greeting: %w", err)
	}
	if hdr[0] != version5 {
		return "", ErrVersion
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return "", fmt.Errorf("socks: greeting: %w", err)
	}
	if !contains(methods, methodNoAuth) {
		rw.Write([]byte{version5, methodNone})
		return "", ErrAuth
	}
	if _, err := rw.Write([]byte{version5, methodNoAuth}); err != nil {
		return "", err
	}
	var req [4]byte // VER CMD RSV ATYP
	if _, err := io.ReadFull(r, req[:]); err != nil {
		return "", fmt.Errorf("socks: request: %w", err)
	}
	if req[0] != version5 {
		return "", ErrVersion
	}
	host, err := readHost(r, req[3])
	if err != nil {
		reply(rw, repAtypNotSupp)
		return "", err
	}
	var port [2]byte
	if _, err := io.ReadFull(r, port[:]); err != nil {
		return "", fmt.Errorf("socks: request: %w", err)
	}
	if req[1] != cmdConnect {
		reply(rw, repCmdNotSupp)
		return "", ErrCommand
	}
	if r.Buffered() > 0 {
		// The client sent data before the reply: nothing may be lost,
		// and a bufio.Reader cannot give it back.
		reply(rw, repNotAllowed)
		return "", errors.New("socks: data before the reply")
	}
	if err := reply(rw, repSucceeded); err != nil {
		return "", err
	}
	return netJoin(host, binary.BigEndian.Uint16(port[:])), nil
}

// readHost reads the address of a request of address type atyp.
func readHost(r io.Reader, atyp byte) (string, error) {
	switch atyp {
	case atypIPv4:
		var a [4]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return "", err
		}
		return netip.AddrFrom4(a).String(), nil
	case atypIPv6:
		var a [16]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return "", err
		}
		return netip.AddrFrom16(a).String(), nil
	case atypDomain:
		var n [1]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return "", err
		}
		name := make([]byte, n[0])
		if _, err := io.ReadFull(r, name); err != nil {
			return "", err
		}
		if len(name) == 0 || !validName(name) {
			return "", ErrAddress
		}
		return string(name), nil
	}
	return "", ErrAddress
}

// validName reports whether a domain name holds only the characters of
// host names (letters, digits, '-', '.', '_'): nothing that could reach
// a shell or split host from port.
func validName(b []byte) bool {
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// reply sends a reply with code rep and an unspecified bound address.
func reply(w io.Writer, rep byte) error {
	_, err := w.Write([]byte{version5, rep, 0, atypIPv4, 0, 0, 0, 0, 0, 0})
	return err
}

func contains(b []byte, x byte) bool {
	for _, c := range b {
		if c == x {
			return true
		}
	}
	return false
}

// netJoin is host:port with IPv6 addresses bracketed.
func netJoin(host string, port uint16) string {
	if a, err := netip.ParseAddr(host); err == nil && a.Is6() {
		return "[" + host + "]:" + strconv.Itoa(int(port))
	}
	return host + ":" + strconv.Itoa(int(port))
}
