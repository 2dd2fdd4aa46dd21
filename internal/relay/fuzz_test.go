package relay

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader reads frames from arbitrary streams: Next must not panic,
// must return only non-empty datagrams of at most MaxDatagram bytes, and
// must end with io.EOF or io.ErrUnexpectedEOF. What it returns, framed
// again, must read back the same, and a stream read to a clean io.EOF
// must be those frames plus empty ones.
func FuzzReader(f *testing.F) {
	f.Add([]byte{})
	f.Add(frames(f, []byte("a")))
	f.Add(frames(f, nil, []byte("hello"), nil, nil, []byte("x")))
	f.Add(frames(f, make([]byte, 1400), make([]byte, 200)))
	f.Add([]byte{0})
	f.Add([]byte{0, 9, 'a'})
	f.Add([]byte{0xff, 0xff, 1, 2, 3})
	f.Add(append(frames(f, make([]byte, 300)), 0xff))
	f.Fuzz(func(t *testing.T, stream []byte) {
		got, err := readAll(bytes.NewReader(stream))
		if err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("Next ended with %v, want io.EOF or io.ErrUnexpectedEOF", err)
		}
		var again []byte
		for _, d := range got {
			if len(d) == 0 || len(d) > MaxDatagram {
				t.Fatalf("Next returned a datagram of %d bytes", len(d))
			}
			again = append(again, 0, 0) // an empty frame before each
			again, _ = AppendFrame(again, d)
		}
		back, err2 := readAll(bytes.NewReader(again))
		if err2 != io.EOF || len(back) != len(got) {
			t.Fatalf("re-reading %d datagrams gave %d, %v", len(got), len(back), err2)
		}
		for i := range got {
			if !bytes.Equal(back[i], got[i]) {
				t.Fatalf("datagram %d changed when framed again", i)
			}
		}
		if err == io.EOF {
			rest := len(stream) - (len(again) - 2*len(got))
			if rest < 0 || rest%headerLen != 0 {
				t.Fatalf("clean end after %d bytes of frames in a %d-byte stream", len(again)-2*len(got), len(stream))
			}
		}
	})
}

// FuzzReadHello reads the version frame from arbitrary streams: no panic,
// and a stream is accepted exactly when its first non-empty frame is
// AppendHello's.
func FuzzReadHello(f *testing.F) {
	f.Add(AppendHello(nil))
	f.Add(append([]byte{0, 0}, AppendHello(nil)...))
	f.Add(frames(f, []byte("GOSH-RELAY\x00\x02")))
	f.Add(frames(f, []byte("GOSH-RELAY")))
	f.Add(frames(f, make([]byte, 100)))
	f.Add([]byte{0, 12, 'G'})
	f.Fuzz(func(t *testing.T, stream []byte) {
		err := NewReader(bytes.NewReader(stream)).ReadHello("the peer")
		rest := stream
		for len(rest) >= 2 && rest[0] == 0 && rest[1] == 0 {
			rest = rest[2:]
		}
		want := AppendHello(nil)
		if accepted := err == nil; accepted != bytes.HasPrefix(rest, want) {
			t.Fatalf("ReadHello(%q) = %v", stream, err)
		}
	})
}
