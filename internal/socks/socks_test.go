package socks

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// conn is a scripted client: what it sent, and what the server wrote.
type conn struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (c *conn) Read(p []byte) (int, error)  { return c.in.Read(p) }
func (c *conn) Write(p []byte) (int, error) { return c.out.Write(p) }

func TestHandshake(t *testing.T) {
	ok := []byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0}
	tests := []struct {
		name    string
		in      []byte
		want    string
		wantErr error
		reply   []byte
	}{
		{"ipv4", []byte{5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90}, "127.0.0.1:8080", nil, append([]byte{5, 0}, ok...)},
		{"domain", append(append([]byte{5, 2, 2, 0, 5, 1, 0, 3, 11}, "example.net"...), 0, 80), "example.net:80", nil, append([]byte{5, 0}, ok...)},
		{"ipv6", append(append([]byte{5, 1, 0, 5, 1, 0, 4}, make([]byte, 15)...), 1, 0, 22), "[::1]:22", nil, append([]byte{5, 0}, ok...)},
		{"socks4", []byte{4, 1, 0, 80, 127, 0, 0, 1, 0}, "", ErrVersion, nil},
		{"auth only", []byte{5, 1, 2}, "", ErrAuth, []byte{5, 0xff}},
		{"bind", []byte{5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80}, "", ErrCommand, append([]byte{5, 0}, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0)},
		{"bad atyp", []byte{5, 1, 0, 5, 1, 0, 9}, "", ErrAddress, append([]byte{5, 0}, 5, 8, 0, 1, 0, 0, 0, 0, 0, 0)},
		{"shell in a name", append(append([]byte{5, 1, 0, 5, 1, 0, 3, 6}, "a;rm x"...), 0, 80), "", ErrAddress, append([]byte{5, 0}, 5, 8, 0, 1, 0, 0, 0, 0, 0, 0)},
		{"truncated", []byte{5, 1, 0, 5, 1, 0, 1, 127}, "", io.ErrUnexpectedEOF, []byte{5, 0, 5, 8, 0, 1, 0, 0, 0, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &conn{in: bytes.NewReader(tc.in)}
			got, err := Handshake(c)
			if got != tc.want || (tc.wantErr == nil) != (err == nil) || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("Handshake = %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
			if tc.reply != nil && !bytes.Equal(c.out.Bytes(), tc.reply) {
				t.Errorf("replies % x, want % x", c.out.Bytes(), tc.reply)
			}
		})
	}
}

func FuzzHandshake(f *testing.F) {
	f.Add([]byte{5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90})
	f.Add(append(append([]byte{5, 1, 0, 5, 1, 0, 3, 11}, "example.net"...), 0, 80))
	f.Add([]byte{5, 255})
	f.Fuzz(func(t *testing.T, in []byte) {
		c := &conn{in: bytes.NewReader(in)}
		host, err := Handshake(c)
		if err == nil && host == "" {
			t.Fatal("success without a destination")
		}
	})
}
