package relay

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxDatagram is the largest datagram a frame carries, in bytes: the
// largest its 16-bit length can say, and more than any UDP payload.
const MaxDatagram = 65535

// headerLen is the length of a frame's header, the datagram's length.
const headerLen = 2

// errTooLarge reports a datagram longer than MaxDatagram.
func errTooLarge(n int) error {
	return fmt.Errorf("relay: datagram of %d bytes is longer than %d", n, MaxDatagram)
}

// AppendFrame appends d, framed, to dst and returns the extended slice. It
// fails, leaving dst as it was, if d is longer than [MaxDatagram]. An empty
// d makes an empty frame, which readers skip (a keepalive).
func AppendFrame(dst, d []byte) ([]byte, error) {
	if len(d) > MaxDatagram {
		return dst, errTooLarge(len(d))
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(d)))
	return append(dst, d...), nil
}

// WriteFrame writes d to w as one frame, in a single call of w's Write:
// writers that share w under a mutex never interleave their frames. It
// writes nothing if d is longer than [MaxDatagram].
func WriteFrame(w io.Writer, d []byte) error {
	frame, err := AppendFrame(make([]byte, 0, headerLen+len(d)), d)
	if err != nil {
		return err
	}
	_, err = w.Write(frame)
	return err
}

// A Reader reads frames from a stream. It buffers its input, so it may
// read more of the stream than the frames it has returned.
//
// A Reader holds at most one datagram of at most [MaxDatagram] bytes
// besides its input buffer, whatever the stream says. It is not safe for
// concurrent use.
type Reader struct {
	br  *bufio.Reader
	hdr [headerLen]byte
	buf []byte // the last datagram; grows up to MaxDatagram
}

// NewReader returns a Reader reading frames from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReader(r)}
}

// Next returns the next datagram, skipping empty frames. The datagram is
// valid until the next call of Next. At the end of the stream, Next
// returns io.EOF if the stream ended between frames, and an error wrapping
// io.ErrUnexpectedEOF if it ended inside one; it returns other errors of
// the stream wrapped.
func (r *Reader) Next() ([]byte, error) {
	for {
		if _, err := io.ReadFull(r.br, r.hdr[:]); err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, readError(err)
		}
		n := int(binary.BigEndian.Uint16(r.hdr[:]))
		if n == 0 {
			continue
		}
		d := r.grow(n)
		if _, err := io.ReadFull(r.br, d); err != nil {
			return nil, readError(err)
		}
		return d, nil
	}
}

// readError wraps an error met inside a frame; io.EOF there is
// io.ErrUnexpectedEOF.
func readError(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("relay: stream ended inside a frame: %w", io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("relay: reading stream: %w", err)
}

// grow returns r.buf resliced to n bytes, reallocated if it is shorter:
// to twice its size, at most MaxDatagram, to keep reallocations few.
func (r *Reader) grow(n int) []byte {
	if n > cap(r.buf) {
		r.buf = make([]byte, min(max(n, 2*cap(r.buf)), MaxDatagram))
	}
	return r.buf[:n]
}
