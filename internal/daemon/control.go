package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/gosh-term/gosh/internal/connectline"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// The control socket's wire format: the client (gosh server list, attach,
// kill) writes one request line, the daemon answers with one reply line;
// both are JSON objects, at most maxControlLine bytes with the newline.
//
//	{"op":"info"}                      → {"id":…,"pid":…,"command":…,"port":…,"started":…,…}
//	{"op":"attach","from":"192.0.2.7"} → the same, and "key":"<22 base64 chars>"
//	{"op":"kill"}                      → the same (the session ends after answering)
//
// A refused request is answered with "error" set, and the facts the daemon
// knows without its session loop.

// maxControlLine bounds a request or reply line, newline included.
const maxControlLine = 4096

// maxFromLen bounds the "from" of an attach request: an IPv6 address with
// a zone, or "local".
const maxFromLen = 64

// Control operations, as they appear on the wire.
const (
	opInfo   = "info"
	opAttach = "attach"
	opKill   = "kill"
)

// sessionIDLen is the length of a session id: lowercase hex digits.
const sessionIDLen = 8

// ErrNoSession is returned for a session id that names no running session
// on this host.
var ErrNoSession = errors.New("daemon: no such session")

// Session is what a session daemon tells about itself: one line of "gosh
// server list". The daemon knows ID, PID, Command, Port and Started; the
// session loop knows the rest, which stays zero when it did not answer
// (Err says why).
type Session struct {
	// ID names the session on this host (8 lowercase hex digits).
	ID string `json:"id"`
	// PID is the daemon's process id.
	PID int `json:"pid"`
	// Command is the program the session runs (the login shell's name
	// when none was given).
	Command string `json:"command"`
	// Port is the session's UDP port.
	Port uint16 `json:"port"`
	// Started is when the session started.
	Started time.Time `json:"started"`
	// LastContact is when the newest authentic datagram arrived (zero:
	// never), and Client where it came from.
	LastContact time.Time      `json:"last_contact,omitzero"`
	Client      netip.AddrPort `json:"client,omitzero"`
	// Cols and Rows are the terminal's size.
	Cols int `json:"cols,omitempty"`
	Rows int `json:"rows,omitempty"`
	// Attached reports whether a client is talking to the session now.
	Attached bool `json:"attached"`
	// Err, when not empty, is why the session loop did not answer.
	Err string `json:"error,omitempty"`
}

// ValidSessionID reports whether id has the form of a session id, so that
// it is safe in a file name and a command line.
func ValidSessionID(id string) bool { return connectline.ValidSessionID(id) }

// controlRequest is one request line.
type controlRequest struct {
	Op   string `json:"op"`
	From string `json:"from,omitempty"`
}

// controlReply is one reply line: the session's facts, the new key of an
// attach (base64), and the error of a refused request.
type controlReply struct {
	Session
	Key string `json:"key,omitempty"`
}

// parseControlRequest parses and checks a request line (with or without
// its newline). From is only allowed for attach, and only as an address
// or a word: it is shown on the previous client's terminal.
func parseControlRequest(line []byte) (controlRequest, error) {
	var r controlRequest
	if err := decodeLine(line, &r); err != nil {
		return controlRequest{}, err
	}
	switch r.Op {
	case opInfo, opKill:
		if r.From != "" {
			return controlRequest{}, fmt.Errorf("daemon: control request %q takes no \"from\"", r.Op)
		}
	case opAttach:
		if !validFrom(r.From) {
			return controlRequest{}, errors.New("daemon: bad \"from\" in an attach request")
		}
	default:
		return controlRequest{}, fmt.Errorf("daemon: unknown control request %.20q", r.Op)
	}
	return r, nil
}

// parseControlReply parses and checks a reply line; the key is returned
// parsed (zero when the reply has none).
func parseControlReply(line []byte) (Session, sspcrypto.Key, error) {
	var r controlReply
	if err := decodeLine(line, &r); err != nil {
		return Session{}, sspcrypto.Key{}, err
	}
	if !ValidSessionID(r.ID) || r.PID <= 0 || r.Cols < 0 || r.Rows < 0 {
		return Session{}, sspcrypto.Key{}, errors.New("daemon: bad control reply")
	}
	var key sspcrypto.Key
	if r.Key != "" {
		k, err := sspcrypto.ParseKey(r.Key)
		if err != nil {
			return Session{}, sspcrypto.Key{}, fmt.Errorf("daemon: bad key in the control reply: %w", err)
		}
		key = k
	}
	return r.Session, key, nil
}

// decodeLine decodes one JSON object of at most maxControlLine bytes,
// followed by nothing but white space; unknown fields are errors.
func decodeLine(line []byte, v any) error {
	if len(line) > maxControlLine {
		return errors.New("daemon: control line too long")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("daemon: bad control line: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("daemon: bad control line: data after the object")
	}
	return nil
}

// validFrom reports whether s is fit to show as where an attach came
// from: non-empty, short, and only the characters of an IP address (with
// a zone) or a word such as "local", so nothing in it can reach a
// terminal as a control sequence.
func validFrom(s string) bool {
	if s == "" || len(s) > maxFromLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == ':' || c == '%' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// readLine reads up to and including the first newline of r, at most max
// bytes; a longer line is an error. (One request or reply per connection:
// what follows the newline is dropped.)
func readLine(r io.Reader, max int) ([]byte, error) {
	buf := make([]byte, max)
	n := 0
	for {
		if n == max {
			return nil, errors.New("daemon: control line too long")
		}
		m, err := r.Read(buf[n:])
		if i := bytes.IndexByte(buf[n:n+m], '\n'); i >= 0 {
			return buf[:n+i+1], nil
		}
		n += m
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}
