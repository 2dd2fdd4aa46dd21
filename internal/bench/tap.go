package bench

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/gosh-term/gosh/internal/bench/keylat"
)

// The tap records what the server side's program draws, so that the
// wrong-prediction check can tell a prediction from a state the server's
// screen went through (output half drawn, say), whatever the transport:
// every typing run starts the program under "gosh bench tap", which runs
// it in a pseudo-terminal of its own, passes everything through, and
// logs each piece of the program's output with the time it was read.
//
// The log is a sequence of records: the time (Unix nanoseconds, 8 bytes,
// big-endian), the length (4 bytes, big-endian), then the output.

// TapArgs are the arguments that make this program run the tap, after its
// executable: "gosh bench tap LOG COLS ROWS -- COMMAND...". A program that
// runs typing benchmarks must hand them to [TapMain], as gosh does (a
// hidden command) and this package's tests do (TestMain).
var TapArgs = []string{"bench", "tap"}

// tapRecordHeader is the size of a log record's time and length.
const tapRecordHeader = 12

// maxTapRecord bounds a record's output (a corrupt log is an error, not an
// allocation of gigabytes).
const maxTapRecord = 1 << 20

// tapArgv is argv run under the tap, logging to log, on a cols×rows
// terminal.
func tapArgv(exe, log string, cols, rows int, argv []string) []string {
	out := append([]string{exe}, TapArgs...)
	out = append(out, log, strconv.Itoa(cols), strconv.Itoa(rows), "--")
	return append(out, argv...)
}

// parseTapArgs reads "LOG COLS ROWS -- COMMAND...".
func parseTapArgs(args []string) (log string, cols, rows int, argv []string, err error) {
	if len(args) < 5 || args[3] != "--" {
		return "", 0, 0, nil, errors.New("usage: gosh bench tap LOG COLS ROWS -- COMMAND [ARG...]")
	}
	cols, err1 := strconv.Atoi(args[1])
	rows, err2 := strconv.Atoi(args[2])
	if err1 != nil || err2 != nil || cols < 1 || rows < 1 || cols > 1000 || rows > 1000 {
		return "", 0, 0, nil, fmt.Errorf("gosh bench tap: bad terminal size %q×%q", args[1], args[2])
	}
	return args[0], cols, rows, args[4:], nil
}

// appendTapRecord appends the record of output read at t.
func appendTapRecord(dst []byte, t time.Time, output []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.UnixNano()))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(output)))
	return append(dst, output...)
}

// readTapLog reads a tap's log: what the program wrote, piece by piece,
// with the time each was read. A log cut short in a record (the tap was
// killed while writing) ends there.
func readTapLog(r io.Reader) ([]keylat.Output, error) {
	br := bufio.NewReader(r)
	var out []keylat.Output
	var head [tapRecordHeader]byte
	for {
		if _, err := io.ReadFull(br, head[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return out, nil
			}
			return out, err
		}
		at := time.Unix(0, int64(binary.BigEndian.Uint64(head[:8])))
		n := binary.BigEndian.Uint32(head[8:])
		if n > maxTapRecord {
			return out, fmt.Errorf("bench: tap log record of %d bytes", n)
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(br, data); err != nil {
			return out, nil
		}
		out = append(out, keylat.Output{At: at, Data: data})
	}
}

// readTapFile is readTapLog of a file.
func readTapFile(name string) ([]keylat.Output, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readTapLog(f)
}
