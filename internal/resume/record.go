package resume

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// Block is how far ahead [File.Reserve] reserves sequence numbers: one
// durable write (two fsyncs) per 4096 datagrams sealed. A client sends at
// most a few tens of datagrams a second while the user types, and far
// fewer when idle, so that is a write minutes apart, cheap enough to do on
// the session loop; and a resume skips at most 4096 numbers of the 2^63.
const Block = 1 << 12

// maxSeq bounds sequence numbers: the nonce holds 63 bits of them.
const maxSeq = 1 << 63

// idLen is the length of a session ID: 8 hexadecimal digits.
const idLen = 8

// maxRecordSize bounds a record file; a real one is a few hundred bytes.
const maxRecordSize = 64 << 10

// keyTextSize is the length of a session key in base64 without padding,
// as mosh-server prints it: 16 bytes.
const keyTextSize = 22

// Record is one saved session, as stored in its file.
type Record struct {
	// ID names the record's file on this machine: 8 lowercase hexadecimal
	// digits, chosen by [Create]. The user knows the session by
	// [Record.Name].
	ID string `json:"id"`
	// Session is the session's ID on its host, as its gosh server told it
	// (gosh sessions lists it; gosh connect --attach takes it): 8
	// lowercase hexadecimal digits, or "" for a stock mosh-server's
	// session and in a record an earlier gosh wrote.
	Session string `json:"session,omitempty"`
	// Host is the destination as the user typed it ("user@host", or an
	// ssh_config alias); it is what "gosh connect host" looks for.
	Host string `json:"host"`
	// Server is the server's UDP address (a netip.AddrPort's text form).
	Server string `json:"server"`
	// Key is the session key in its printable base64 form (as
	// sspcrypto.Key.Base64 gives it). It is the secret.
	Key string `json:"key"`
	// Gosh reports that the server is gosh's, which can resume a
	// session; a stock mosh-server cannot.
	Gosh bool `json:"gosh"`
	// Epoch is the resume generation, incremented by every [Claim].
	Epoch uint64 `json:"epoch"`
	// Seq is the reservation S: every sequence number below it may have
	// been used, so a resumed client starts sealing at Seq.
	Seq uint64 `json:"seq"`
	// Scroll is the client's count of lines already in its local
	// scrollback; this package does not interpret it.
	Scroll uint64 `json:"scroll"`
	// PID is the client process holding the session, 0 when released.
	PID int `json:"pid"`
	// Started is when the session was created.
	Started time.Time `json:"started"`
	// Updated is when the record was last written.
	Updated time.Time `json:"updated"`
	// Command is what the session runs, if the client knows it.
	Command string `json:"command,omitempty"`

	// Detached is set by [List]: no live client holds the session's
	// lock, so it may be resumed. It is not stored.
	Detached bool `json:"-"`
}

// Name is the ID the user knows the session by, in gosh sessions, the
// resume offer and gosh connect --resume: the server's session ID, or the
// record's own for a session without one.
func (r Record) Name() string {
	if r.Session != "" {
		return r.Session
	}
	return r.ID
}

// String describes r without its key, so that printing a Record never
// shows the secret.
func (r Record) String() string {
	return fmt.Sprintf("session %s on %s (server %s, epoch %d)", r.Name(), r.Host, r.Server, r.Epoch)
}

// validID reports whether id is a session ID: 8 lowercase hex digits.
// Every ID names files, so nothing else may pass.
func validID(id string) bool {
	if len(id) != idLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// NewID returns a random session ID.
func NewID() string {
	var b [idLen / 2]byte
	rand.Read(b[:]) // never fails
	return hex.EncodeToString(b[:])
}

// check reports what is wrong with r, or nil.
func (r *Record) check() error {
	switch {
	case !validID(r.ID):
		return fmt.Errorf("bad session ID %q", r.ID)
	case r.Session != "" && !validID(r.Session):
		return fmt.Errorf("bad server session ID %q", r.Session)
	case r.Host == "":
		return errors.New("no host")
	case r.Seq > maxSeq:
		return fmt.Errorf("sequence reservation %d beyond 2^63", r.Seq)
	case r.PID < 0:
		return fmt.Errorf("bad PID %d", r.PID)
	}
	if ap, err := netip.ParseAddrPort(r.Server); err != nil || ap.Port() == 0 {
		return fmt.Errorf("bad server address %q", r.Server)
	}
	if len(r.Key) != keyTextSize {
		return errors.New("bad key length")
	}
	if b, err := base64.RawStdEncoding.Strict().DecodeString(r.Key); err != nil || len(b) != 16 {
		return errors.New("bad key encoding")
	}
	return nil
}

// parseRecord decodes and checks a record file's contents. Fields it
// does not know are ignored, so a newer gosh's records still read.
func parseRecord(b []byte) (Record, error) {
	var r Record
	if len(b) > maxRecordSize {
		return Record{}, errors.New("record too large")
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, err
	}
	r.Detached = false
	if err := r.check(); err != nil {
		return Record{}, err
	}
	return r, nil
}

// marshal encodes r for its file.
func (r *Record) marshal() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "\t")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
