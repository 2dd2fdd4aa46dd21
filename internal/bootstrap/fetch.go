package bootstrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// Release files are downloaded by the system's curl rather than by
// net/http: net/http and the crypto/tls it brings are 2 MB of the binary
// and 0.8 MB of its gzip stream (linux/amd64, -s -w), which every
// self-upload would carry to every remote, for a download that a client
// makes at most once per platform and version and that no remote makes.
// Windows (since 10 1803), macOS and most Linux systems ship curl. What
// is downloaded is checked as before: checksums.txt by its signature, the
// archive by checksums.txt. curl keeps the https-only policy: --proto and
// --proto-redir refuse plain http, unless it is allowed, for the URL and
// for every redirect.

// getOptions say what a download accepts.
type getOptions struct {
	allowHTTP bool   // plain http, for the URL and its redirects
	caFile    string // a PEM file of the certificates to trust instead of the system's; "" for those
}

// errNoCurl: curl is not installed.
var errNoCurl = errors.New("downloading needs curl, which is not on PATH")

// httpGet downloads url with curl. Reading the stream to its end returns
// curl's failure, as one line naming url, instead of io.EOF; Close stops
// curl.
func httpGet(ctx context.Context, url string, o getOptions) (io.ReadCloser, error) {
	switch {
	case strings.HasPrefix(url, "http://") && !o.allowHTTP:
		return nil, fmt.Errorf("refusing %s: release downloads take https only (%s=1 allows http; the signature is checked all the same)", url, ReleaseAllowHTTPEnv)
	case !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://"):
		return nil, fmt.Errorf("%s: not an http or https URL", url)
	}
	path, err := exec.LookPath("curl")
	if err != nil {
		return nil, errNoCurl
	}
	protocols := "=https"
	if o.allowHTTP {
		protocols = "=https,http"
	}
	args := []string{"--fail", "--silent", "--show-error", "--location", "--max-redirs", strconv.Itoa(maxRedirects),
		"--proto", protocols, "--proto-redir", protocols}
	if o.caFile != "" {
		args = append(args, "--cacert", o.caFile)
	}
	cmd := exec.CommandContext(ctx, path, append(args, "--", url)...)
	g := &getStream{cmd: cmd, url: url, allowHTTP: o.allowHTTP}
	cmd.Stderr = &g.stderr
	if g.out, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("curl: %w", err)
	}
	return g, nil
}

// getStream is the output of a running curl.
type getStream struct {
	cmd       *exec.Cmd
	url       string
	allowHTTP bool
	out       io.ReadCloser
	stderr    bytes.Buffer
	waitOnce  sync.Once
	waitErr   error
}

func (g *getStream) Read(p []byte) (int, error) {
	n, err := g.out.Read(p)
	if errors.Is(err, io.EOF) {
		if werr := g.wait(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

// curl's exit statuses that get a message of their own.
const (
	curlUnsupportedProtocol = 1
	curlTooManyRedirects    = 47
)

// wait waits for curl once and describes its failure in one line.
func (g *getStream) wait() error {
	g.waitOnce.Do(func() {
		err := g.cmd.Wait()
		var ee *exec.ExitError
		if err == nil || !errors.As(err, &ee) {
			g.waitErr = err
			return
		}
		msg := lastLine(g.stderr.String())
		switch ee.ExitCode() {
		case curlUnsupportedProtocol:
			if !g.allowHTTP {
				g.waitErr = fmt.Errorf("refusing the redirect from %s to a URL that is not https: release downloads take https only (%s=1 allows http; the signature is checked all the same)",
					g.url, ReleaseAllowHTTPEnv)
				return
			}
		case curlTooManyRedirects:
			g.waitErr = fmt.Errorf("%s: stopped after %d redirects", g.url, maxRedirects)
			return
		}
		if _, m, ok := strings.Cut(msg, ") "); ok && strings.HasPrefix(msg, "curl: (") {
			msg = m // "curl: (22) The requested URL returned error: 404"
		}
		if msg == "" {
			msg = "curl: " + err.Error()
		}
		g.waitErr = fmt.Errorf("%s: %s", g.url, msg)
	})
	return g.waitErr
}

// Close stops curl if it still runs and reaps it.
func (g *getStream) Close() error {
	g.out.Close() // a curl still writing gets EPIPE and ends
	g.cmd.Process.Kill()
	g.wait()
	return nil
}
