package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gosh-term/gosh/internal/coredump"
)

// config travels from the starter to the daemon over its first extra
// descriptor: everything the daemon needs, worked out by the starter
// (never argv or the environment, which other users may read).
type config struct {
	// Options are the command line's, with BindSSH already resolved into
	// BindIP.
	Options Options
	// Env and Dir are the program's environment and working directory.
	Env []string
	Dir string
	// Cols and Rows are the program's terminal size at the start.
	Cols, Rows int
	// MOTD is shown before the program's output.
	MOTD []byte
	// NetworkTimeout and SignalTimeout are MOSH_SERVER_NETWORK_TMOUT and
	// MOSH_SERVER_SIGNAL_TMOUT (zero: none).
	NetworkTimeout time.Duration
	SignalTimeout  time.Duration
	// CoreLimit is the user's soft core limit, for the program (gosh
	// itself runs with core dumps off).
	CoreLimit coredump.Limit
}

// status travels back over the second: the bound port, the key and the
// session's ID (empty without a control socket), or why the daemon could
// not start.
type status struct {
	Port    uint16 `json:",omitempty"`
	Key     string `json:",omitempty"`
	Session string `json:",omitempty"`
	Error   string `json:",omitempty"`
}

// The daemon's extra file descriptors.
const (
	configFD = 3 // config in
	statusFD = 4 // status out
)

// maxMessage bounds what either side reads from the other.
const maxMessage = 1 << 20

func writeMessage(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// readMessage decodes one message of at most maxMessage bytes.
func readMessage(r io.Reader, v any) error {
	dec := json.NewDecoder(io.LimitReader(r, maxMessage))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF
		}
		return fmt.Errorf("daemon: %w", err)
	}
	return nil
}
