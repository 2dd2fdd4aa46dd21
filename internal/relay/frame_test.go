package relay

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// frames encodes ds as a stream; nil entries are empty frames.
func frames(t testing.TB, ds ...[]byte) []byte {
	t.Helper()
	var b []byte
	for _, d := range ds {
		var err error
		if b, err = AppendFrame(b, d); err != nil {
			t.Fatalf("AppendFrame(%d bytes): %v", len(d), err)
		}
	}
	return b
}

// readAll reads datagrams from stream until Next fails, and returns copies
// of them and the error.
func readAll(stream io.Reader) ([][]byte, error) {
	r := NewReader(stream)
	var got [][]byte
	for {
		d, err := r.Next()
		if err != nil {
			return got, err
		}
		got = append(got, bytes.Clone(d))
	}
}

func TestAppendFrame(t *testing.T) {
	tests := []struct {
		name string
		d    []byte
		want []byte
	}{
		{"empty", nil, []byte{0, 0}},
		{"one byte", []byte{0xaa}, []byte{0, 1, 0xaa}},
		{"three bytes", []byte("abc"), []byte{0, 3, 'a', 'b', 'c'}},
		{"256 bytes", make([]byte, 256), append([]byte{1, 0}, make([]byte, 256)...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendFrame([]byte("x"), tc.d)
			if err != nil || !bytes.Equal(got, append([]byte("x"), tc.want...)) {
				t.Errorf("AppendFrame(x, %q) = %x, %v; want x%x", tc.d, got, err, tc.want)
			}
		})
	}
}

func TestFrameSizes(t *testing.T) {
	longest := bytes.Repeat([]byte{0x5a}, MaxDatagram)
	b, err := AppendFrame(nil, longest)
	if err != nil || len(b) != headerLen+MaxDatagram || b[0] != 0xff || b[1] != 0xff {
		t.Fatalf("AppendFrame(%d bytes) = %d bytes %x…, %v; want ffff and the datagram", MaxDatagram, len(b), b[:min(len(b), 2)], err)
	}
	got, err := readAll(bytes.NewReader(b))
	if err != io.EOF || len(got) != 1 || !bytes.Equal(got[0], longest) {
		t.Errorf("reading a %d-byte frame: %d datagrams, %v; want it back, EOF", MaxDatagram, len(got), err)
	}

	over := make([]byte, MaxDatagram+1)
	if b, err := AppendFrame([]byte("keep"), over); err == nil || string(b) != "keep" {
		t.Errorf("AppendFrame(%d bytes) = %q, %v; want dst unchanged and an error", len(over), b, err)
	}
	var w countingWriter
	if err := WriteFrame(&w, over); err == nil || w.calls != 0 {
		t.Errorf("WriteFrame(%d bytes) = %v after %d writes; want an error and no write", len(over), err, w.calls)
	}
}

// countingWriter collects what is written to it and counts the calls.
type countingWriter struct {
	bytes.Buffer
	calls int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.calls++
	return w.Buffer.Write(p)
}

func TestWriteFrameOneWrite(t *testing.T) {
	var w countingWriter
	for i, d := range [][]byte{[]byte("hello"), nil, make([]byte, 1400)} {
		if err := WriteFrame(&w, d); err != nil {
			t.Fatal(err)
		}
		if w.calls != i+1 {
			t.Fatalf("after %d frames, %d Write calls; want one a frame", i+1, w.calls)
		}
	}
	if want := frames(t, []byte("hello"), nil, make([]byte, 1400)); !bytes.Equal(w.Bytes(), want) {
		t.Errorf("WriteFrame wrote %x, want %x", w.Bytes(), want)
	}
}

func TestReader(t *testing.T) {
	long := bytes.Repeat([]byte("0123456789"), 1000)
	tests := []struct {
		name    string
		stream  []byte
		want    []string
		wantErr error
	}{
		{"empty stream", nil, nil, io.EOF},
		{"one", frames(t, []byte("a")), []string{"a"}, io.EOF},
		{"empty frames skipped", frames(t, nil, []byte("a"), nil, nil, []byte("bc"), nil), []string{"a", "bc"}, io.EOF},
		{"only empty frames", frames(t, nil, nil), nil, io.EOF},
		{"growing then shrinking", frames(t, []byte("a"), long, []byte("b")), []string{"a", string(long), "b"}, io.EOF},
		{"half a header", []byte{0}, nil, io.ErrUnexpectedEOF},
		{"header only", []byte{0, 5}, nil, io.ErrUnexpectedEOF},
		{"short datagram", []byte{0, 5, 'a', 'b'}, nil, io.ErrUnexpectedEOF},
		{"truncated after a frame", append(frames(t, []byte("ok")), 0, 3, 'x'), []string{"ok"}, io.ErrUnexpectedEOF},
		{"huge length, no body", []byte{0xff, 0xff, 1, 2, 3}, nil, io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []struct {
				name string
				wrap func(io.Reader) io.Reader
			}{
				{"whole", func(r io.Reader) io.Reader { return r }},
				{"bytewise", iotest.OneByteReader},
				{"eof with data", iotest.DataErrReader},
			} {
				got, err := readAll(mode.wrap(bytes.NewReader(tc.stream)))
				if !errors.Is(err, tc.wantErr) || (tc.wantErr == io.EOF && err != io.EOF) {
					t.Errorf("%s: Next error = %v, want %v", mode.name, err, tc.wantErr)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("%s: got %d datagrams, want %d", mode.name, len(got), len(tc.want))
				}
				for i := range got {
					if string(got[i]) != tc.want[i] {
						t.Errorf("%s: datagram %d = %.20q…, want %.20q…", mode.name, i, got[i], tc.want[i])
					}
				}
			}
		})
	}
}

func TestReaderStreamError(t *testing.T) {
	boom := errors.New("boom")
	_, err := readAll(io.MultiReader(bytes.NewReader(frames(t, []byte("a"))), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Errorf("Next after a failing stream = %v, want it to wrap %v", err, boom)
	}
}

// TestReaderMemory checks that a Reader reuses its buffer: frames of any
// size up to MaxDatagram cost no allocation once one as long was read.
func TestReaderMemory(t *testing.T) {
	stream := frames(t, make([]byte, MaxDatagram), []byte("a"), make([]byte, 1400), nil, make([]byte, MaxDatagram))
	src := bytes.NewReader(stream)
	r := NewReader(src)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if cap(r.buf) != MaxDatagram {
		t.Errorf("buffer of %d bytes after a %d-byte frame, want %d", cap(r.buf), MaxDatagram, MaxDatagram)
	}
	allocs := testing.AllocsPerRun(10, func() {
		src.Reset(stream)
		r.br.Reset(src)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("reading frames allocates %v times, want 0", allocs)
	}
}
