package bootstrap

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/gosh-term/gosh/internal/connectline"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// startOutput collects what the remote start command printed.
type startOutput struct {
	port      uint16
	key       sspcrypto.Key
	connected bool
	serverIP  string // from MOSH SSH_CONNECTION
	unameS    string // from GOSH UPLOAD
	unameM    string
	needs     bool     // GOSH UPLOAD seen
	gzip      bool     // GOSH GZIP seen: uploads may be gzip streams
	have      []string // GOSH HAVE: SHA-256 of the binaries uploaded earlier
	using     string   // GOSH USING: the remote gosh started
	uploaded  string
	detached  connectline.Detached // the server's pid and session ID

	mu     sync.Mutex // guards following
	text   strings.Builder
	echoed bool
}

// stdoutLine handles one line of the command's stdout and reports whether
// it is for the user (not part of the protocol).
func (o *startOutput) stdoutLine(line string) (forUser bool) {
	line = strings.TrimRight(line, "\r\n")
	if d, ok := connectline.ParseDetached(line); ok {
		o.mu.Lock()
		o.detached = d // a system ssh with -tt merges stderr into stdout
		o.mu.Unlock()
		return false
	}
	if o.connected {
		return false // mosh's wrapper stops reading at the CONNECT line
	}
	if port, key, ok := connectline.Parse(line); ok {
		o.port, o.key, o.connected = port, key, true
		return false
	}
	if ip, ok := parseSSHConnectionLine(line); ok {
		o.serverIP = ip
		return false
	}
	if rest, ok := strings.CutPrefix(line, needUploadPrefix); ok {
		f := strings.Fields(rest)
		if len(f) == 2 {
			o.needs, o.unameS, o.unameM = true, f[0], f[1]
			return false
		}
	}
	if line == gzipLine {
		o.gzip = true
		return false
	}
	if rest, ok := strings.CutPrefix(line, havePrefix); ok && isSHA256(rest) {
		o.have = append(o.have, rest)
		return false
	}
	if rest, ok := strings.CutPrefix(line, usingPrefix); ok {
		o.using = rest
		return false
	}
	if rest, ok := strings.CutPrefix(line, uploadedLine+" "); ok {
		o.uploaded = strings.TrimSpace(rest)
		return false
	}
	return strings.TrimSpace(line) != ""
}

// capture keeps the last maxCapturedStderrLen bytes of diagnostics.
func (o *startOutput) capture(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.text.WriteString(line)
	o.text.WriteByte('\n')
	if o.text.Len() > maxCapturedStderrLen {
		s := o.text.String()
		o.text.Reset()
		o.text.WriteString(s[len(s)-maxCapturedStderrLen/2:])
	}
}

func (o *startOutput) captured() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.text.String()
}

// forEachLine calls f with every line of r (without the newline); lines
// longer than maxLineLen arrive in pieces. It returns at EOF or error.
func forEachLine(r io.Reader, f func(string)) error {
	br := bufio.NewReaderSize(r, maxLineLen)
	for {
		b, err := br.ReadSlice('\n')
		if len(b) > 0 {
			f(strings.TrimRight(string(b), "\n"))
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}
