package ssp

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"io"
)

var (
	errInflate      = errors.New("ssp: zlib decompression failed")
	errInflateLimit = errors.New("ssp: instruction inflates beyond 4 MiB")
)

// storedOverhead is the size of a zlib stream holding its data in a single
// stored DEFLATE block: 2-byte zlib header, 1-byte block header, LEN and
// NLEN, 4-byte Adler-32 (RFC 1950, RFC 1951 section 3.2.4).
const storedOverhead = 2 + 1 + 4 + 4

// compressor deflates and inflates instructions (docs/protocol.md section 5),
// reusing its zlib state so that neither direction allocates in steady
// state.
//
// A compressor is not safe for concurrent use.
type compressor struct {
	small smallDeflate
	best  *zlib.Writer // level 6, created on first use
	out   appendWriter
	fr    io.ReadCloser // flate reader
	src   bytes.Reader
}

// appendWriter is an io.Writer that appends to a slice.
type appendWriter struct{ b []byte }

// Write appends p; it never fails.
func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// compress appends a zlib stream of src to dst. Mosh compresses at level
// 6; gosh does so for large instructions (screen repaints), where it
// saves bytes, and below compressBestMin bytes uses smallDeflate, whose
// fixed codes do as well as level 1 there, without level 1's 1.2 MB of
// tables (a zlib writer's) held for the life of the session. When
// deflating is longer than storing src verbatim (common for a short
// instruction with its random chaff) it stores instead. All of these are
// valid zlib, which is all a receiver requires.
func (c *compressor) compress(dst, src []byte) []byte {
	var out []byte
	if len(src) < compressBestMin {
		out = c.small.compress(dst, src)
	} else {
		c.out.b = dst
		if c.best == nil {
			c.best, _ = zlib.NewWriterLevel(&c.out, zlib.DefaultCompression) // the level is valid
		} else {
			c.best.Reset(&c.out)
		}
		c.best.Write(src) // appendWriter never fails
		c.best.Close()
		out = c.out.b
		c.out.b = nil
	}
	if len(out)-len(dst) > len(src)+storedOverhead && len(src) <= 0xFFFF {
		return appendStored(out[:len(dst)], src)
	}
	return out
}

// appendStored appends src to dst as a zlib stream with one stored block.
func appendStored(dst, src []byte) []byte {
	n := uint16(len(src))
	dst = append(dst, 0x78, 0x01) // deflate, 32 KiB window, no dictionary, FLEVEL 0
	dst = append(dst, 0x01)       // BFINAL=1, BTYPE=00 (stored)
	dst = binary.LittleEndian.AppendUint16(dst, n)
	dst = binary.LittleEndian.AppendUint16(dst, ^n)
	dst = append(dst, src...)
	return binary.BigEndian.AppendUint32(dst, adler32.Checksum(src))
}

// inflate appends the decompression of the zlib stream src to dst. It
// fails if src is not a valid zlib stream (RFC 1950: header, DEFLATE data,
// Adler-32 of the output) or inflates to more than limit bytes. Bytes after
// the end of the stream are ignored, as zlib's uncompress does. The zlib
// framing is checked here rather than by compress/zlib, whose reader
// allocates on every reset.
func (c *compressor) inflate(dst, src []byte, limit int) ([]byte, error) {
	if len(src) < 2 || src[0]&0x0f != 8 || src[0]>>4 > 7 || src[1]&0x20 != 0 ||
		binary.BigEndian.Uint16(src)%31 != 0 {
		return dst, errInflate // not deflate, bad window, preset dictionary, or bad check bits
	}
	c.src.Reset(src[2:])
	if c.fr == nil {
		c.fr = flate.NewReader(&c.src)
	} else if err := c.fr.(flate.Resetter).Reset(&c.src, nil); err != nil {
		return dst, errInflate
	}
	start := len(dst)
	dst, err := c.readAll(dst, start+limit)
	if err != nil {
		return dst[:start], err
	}
	// flate stops right after the final block when reading a
	// bytes.Reader, so the checksum comes next.
	sum := src[len(src)-c.src.Len():]
	if len(sum) < 4 || binary.BigEndian.Uint32(sum) != adler32.Checksum(dst[start:]) {
		return dst[:start], errInflate
	}
	return dst, nil
}

// readAll appends the output of c.fr to dst until EOF, failing once dst
// would grow beyond max bytes.
func (c *compressor) readAll(dst []byte, max int) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		room := min(cap(dst), max+1) // read at most one byte past the limit
		n, err := c.fr.Read(dst[len(dst):room])
		dst = dst[:len(dst)+n]
		if len(dst) > max {
			return dst, errInflateLimit
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, errInflate
		}
	}
}
