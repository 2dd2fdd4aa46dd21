package relay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Version is the version of the relay's stream this gosh speaks: the
// framing, and what each end does with the frames.
const Version = 1

// helloMagic starts the version frame's datagram, which is helloMagic
// and the version, a 2-byte big-endian number: 12 bytes, shorter than any
// sealed datagram (24 bytes at least: a nonce and a tag), so that a
// relay or a client that predates it, taking it for a datagram, passes
// on something the session drops.
const helloMagic = "GOSH-RELAY"

// helloLen is the length of the version frame's datagram.
const helloLen = len(helloMagic) + 2

// AppendHello appends the version frame of [Version] to dst: the first
// frame each end writes.
func AppendHello(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(helloLen))
	dst = append(dst, helloMagic...)
	return binary.BigEndian.AppendUint16(dst, Version)
}

// errNoHello is a first frame that is not a version frame.
var errNoHello = errors.New("relay: no version frame")

// parseHello returns the version a version frame's datagram d carries.
func parseHello(d []byte) (uint16, error) {
	if len(d) != helloLen || !bytes.HasPrefix(d, []byte(helloMagic)) {
		return 0, errNoHello
	}
	return binary.BigEndian.Uint16(d[len(helloMagic):]), nil
}

// ReadHello reads the stream's first frame, which must be the version
// frame of [Version]; peer names the far end in the errors ("the
// server's gosh server relay"). It returns io.EOF if the stream ended,
// cleanly, before any frame, and otherwise Next's errors, or one line
// saying that the far end is a gosh that predates the version frame or
// speaks another version.
func (r *Reader) ReadHello(peer string) error {
	d, err := r.Next()
	if err != nil {
		return err
	}
	v, err := parseHello(d)
	switch {
	case err != nil:
		return fmt.Errorf("relay: %s sent no version frame: it is an older gosh; install this gosh's version (relay version %d) at both ends", peer, Version)
	case v != Version:
		return fmt.Errorf("relay: %s speaks relay version %d, this gosh version %d; install the same gosh version at both ends", peer, v, Version)
	}
	return nil
}

// writeHello writes the version frame to w.
func writeHello(w io.Writer) error {
	_, err := w.Write(AppendHello(make([]byte, 0, headerLen+helloLen)))
	return err
}
