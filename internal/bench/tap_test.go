package bench

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

// TestTapLog: records written by the tap read back as written; a record
// cut short ends the log; an absurd length is an error.
func TestTapLog(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 123)
	var log []byte
	log = appendTapRecord(log, t0, []byte("$ "))
	log = appendTapRecord(log, t0.Add(time.Millisecond), []byte("ls\r\n"))
	out, err := readTapLog(bytes.NewReader(log))
	if err != nil || len(out) != 2 || !out[0].At.Equal(t0) || string(out[1].Data) != "ls\r\n" || !out[1].At.Equal(t0.Add(time.Millisecond)) {
		t.Fatalf("readTapLog = %+v, %v", out, err)
	}
	if out, err := readTapLog(bytes.NewReader(log[:len(log)-2])); err != nil || len(out) != 1 {
		t.Errorf("a log cut short: %d records, %v; want the first and no error", len(out), err)
	}
	bad := slices.Clone(log[:tapRecordHeader])
	bad[8] = 0xff
	if _, err := readTapLog(bytes.NewReader(bad)); err == nil {
		t.Errorf("a record of 4 GB read without an error")
	}
}

// TestTapArgs: the tap's command line parses back, and bad ones do not.
func TestTapArgs(t *testing.T) {
	argv := tapArgv("/bin/gosh", "/tmp/log", 80, 24, []string{"bash", "-i"})
	if !slices.Equal(argv[1:3], TapArgs) {
		t.Fatalf("tapArgv = %q, want %q after the executable", argv, TapArgs)
	}
	log, cols, rows, cmd, err := parseTapArgs(argv[3:])
	if err != nil || log != "/tmp/log" || cols != 80 || rows != 24 || !slices.Equal(cmd, []string{"bash", "-i"}) {
		t.Errorf("parseTapArgs = %q %d %d %q %v", log, cols, rows, cmd, err)
	}
	for _, bad := range [][]string{nil, {"log", "80", "24"}, {"log", "80", "24", "bash"}, {"log", "x", "24", "--", "bash"}, {"log", "0", "24", "--", "bash"}} {
		if _, _, _, _, err := parseTapArgs(bad); err == nil {
			t.Errorf("parseTapArgs(%q) accepted", bad)
		}
	}
}

// FuzzTapLog: reading a log never panics, and keeps within its input.
func FuzzTapLog(f *testing.F) {
	f.Add(appendTapRecord(nil, time.Unix(1, 0), []byte("hello\r\n")))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, log []byte) {
		out, _ := readTapLog(bytes.NewReader(log))
		n := 0
		for _, o := range out {
			n += tapRecordHeader + len(o.Data)
		}
		if n > len(log) {
			t.Errorf("%d bytes of records read from %d bytes", n, len(log))
		}
	})
}

// FuzzTapArgs: parsing the tap's arguments never panics.
func FuzzTapArgs(f *testing.F) {
	f.Add("log", "80", "24", "--", "bash")
	f.Fuzz(func(t *testing.T, a, b, c, d, e string) {
		_, cols, rows, argv, err := parseTapArgs([]string{a, b, c, d, e})
		if err == nil && (cols < 1 || rows < 1 || len(argv) != 1) {
			t.Errorf("parseTapArgs accepted %q: %d×%d %q", []string{a, b, c, d, e}, cols, rows, argv)
		}
	})
}
