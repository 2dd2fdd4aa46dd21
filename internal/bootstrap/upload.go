package bootstrap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gosh-term/gosh/internal/buildinfo"
)

// BinaryCacheEnv names the environment variable that overrides the default
// binary cache directory.
const BinaryCacheEnv = "GOSH_BINARY_CACHE"

// DefaultBinaryCache is where gosh looks for binaries for other platforms:
// $GOSH_BINARY_CACHE if set, else $XDG_CACHE_HOME/gosh/<version>, else
// ~/.cache/gosh/<version> (os.UserCacheDir). Files in it are named
// gosh-<goos>-<goarch>, e.g. gosh-linux-arm64.
func DefaultBinaryCache() string {
	if d := os.Getenv(BinaryCacheEnv); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "gosh", versionDirName())
}

// binaryFor picks the gosh binary to upload to a goos/goarch remote: the
// one named by RemoteBinary; this binary, for a remote of its own
// platform; the binary cache's gosh-GOOS-GOARCH; else the release's
// archive for that platform, downloaded, verified against the release's
// checksums and cached.
func binaryFor(ctx context.Context, cfg *Config, goos, goarch string) (string, error) {
	if cfg.RemoteBinary != "" {
		return cfg.RemoteBinary, nil
	}
	var looked []string
	if goos == runtime.GOOS && goarch == runtime.GOARCH {
		local := localBinary(cfg)
		if isFile(local) {
			return local, nil
		}
		looked = append(looked, local)
	}
	cache := cfg.binaryCache()
	if cache == "" {
		return "", &NoBinaryError{GOOS: goos, GOARCH: goarch, Looked: looked}
	}
	p := filepath.Join(cache, "gosh-"+goos+"-"+goarch)
	if isFile(p) {
		return p, nil
	}
	src := cfg.Release
	if src == (ReleaseSource{}) {
		src = ReleaseSource{URL: ReleaseURL()}
	}
	cfg.Logf.Printf("bootstrap: fetching gosh for %s/%s from %s", goos, goarch, src)
	fmt.Fprintf(cfg.stderr(), "gosh: downloading gosh %s for %s/%s from %s\n", releaseVersion(), goos, goarch, src)
	return FetchRelease(ctx, src, goos, goarch, cache)
}

// binaryCache is [Config.BinaryCache], else [DefaultBinaryCache].
func (c *Config) binaryCache() string {
	if c.BinaryCache != "" {
		return c.BinaryCache
	}
	return DefaultBinaryCache()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// selfSHA256 is the SHA-256 of the binary this client uploads to a remote
// of its own platform, or "" (no guess) when that is not the default
// server or uploads are off.
func selfSHA256(cfg *Config) string {
	if cfg.ServerCommand != DefaultServerCommand || cfg.Upload == UploadNever {
		return ""
	}
	path := cfg.RemoteBinary
	if path == "" {
		path = localBinary(cfg)
	}
	sum, _ := fileSHA256(path)
	return sum
}

func localBinary(cfg *Config) string {
	if cfg.LocalBinary != "" {
		return cfg.LocalBinary
	}
	exe, _ := os.Executable()
	return exe
}

// ensureUploaded finds the binary for the remote's platform (out's GOSH
// UPLOAD line) and uploads it unless the remote has it already (a GOSH
// HAVE line), as a gzip stream if the remote can take one (GOSH GZIP). It
// returns its SHA-256 and the path of an upload ("" if none was needed).
func ensureUploaded(ctx context.Context, rr *remoteRun, cfg *Config, out *startOutput) (sum, uploaded string, err error) {
	goos, goarch, ok := platform(out.unameS, out.unameM)
	if !ok {
		return "", "", fmt.Errorf("bootstrap: the remote (%s %s) has no usable gosh and gosh has no build for its platform", out.unameS, out.unameM)
	}
	path, err := binaryFor(ctx, cfg, goos, goarch)
	if err != nil {
		return "", "", err
	}
	if sum, err = fileSHA256(path); err != nil {
		return "", "", fmt.Errorf("bootstrap: reading %s: %w", path, err)
	}
	if slices.Contains(out.have, sum) {
		return sum, "", nil
	}
	if err := verifyCachedRelease(cfg.Release, path, sum, goos, goarch); err != nil {
		return "", "", err
	}
	uploaded, err = upload(ctx, rr, cfg, path, sum, goos, goarch, out.gzip)
	return sum, uploaded, err
}

// upload copies the binary at path into the upload directory over a new
// session of rr's connection, as a gzip stream with gz, and returns the
// remote path. The remote checks the SHA-256 before moving it into place.
func upload(ctx context.Context, rr *remoteRun, cfg *Config, path, sum, goos, goarch string, gz bool) (string, error) {
	src, err := openUpload(cfg, path, sum, goos, goarch, gz)
	if err != nil {
		return "", fmt.Errorf("bootstrap: %w", err)
	}
	defer src.Close()
	cfg.Logf.Printf("bootstrap: uploading %s (%s/%s, gosh %s, sha256 %s, %s)", path, goos, goarch, buildinfo.Version, sum, src.describe())
	fmt.Fprintf(cfg.stderr(), "gosh: no usable gosh on the remote; uploading gosh %s for %s/%s\n", buildinfo.Version, goos, goarch)
	command := uploadScript(sum, gz)
	sent := &countingReader{r: src}
	start := time.Now()
	stopProgress := showProgress(cfg.stderr(), start, sent, src)
	out, err := rr.run(ctx, command, sent)
	srcErr := src.Close()
	stopProgress(err == nil && out.uploaded != "")
	if err != nil || out.uploaded == "" {
		src.forget()
		if srcErr != nil {
			return "", fmt.Errorf("bootstrap: uploading %s: %w", path, srcErr)
		}
		return "", &uploadError{serverError(command, out, err)}
	}
	cfg.Logf.Printf("bootstrap: uploaded %s: sent %d bytes in %v", out.uploaded, sent.n.Load(), time.Since(start).Round(time.Millisecond))
	return out.uploaded, nil
}

// showProgress shows the progress of the upload of src through sent on
// w (see [uploadProgress]) until the function it returns is called, with
// whether the upload succeeded.
func showProgress(w io.Writer, start time.Time, sent *countingReader, src uploadStream) (stop func(ok bool)) {
	p := newUploadProgress(w, isTerminal(w), start)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				total, exact := src.size()
				p.update(now, sent.n.Load(), total, exact, sent.end.Load())
			}
		}
	}()
	return func(ok bool) {
		close(done)
		<-stopped
		p.finish(time.Now(), sent.n.Load(), ok)
	}
}

// uploadError is an upload the remote did not complete.
type uploadError struct{ se *ServerError }

func (e *uploadError) Error() string {
	status := "no exit status"
	if e.se.ExitStatus >= 0 {
		status = fmt.Sprintf("exit status %d", e.se.ExitStatus)
	}
	msg := lastLine(e.se.Stderr)
	if msg == "" {
		msg = "no output"
		if e.se.Err != nil && !errors.Is(e.se.Err, ErrNoConnectLine) {
			msg = e.se.Err.Error()
		}
	}
	return fmt.Sprintf("bootstrap: uploading gosh to the remote failed (%s): %s", status, msg)
}

// Unwrap returns the *ServerError with the upload script's output.
func (e *uploadError) Unwrap() error { return e.se }

// uploadStream is what an upload sends on the remote's standard input.
type uploadStream interface {
	io.Reader
	// Close ends the stream; it returns an error of the stream's own
	// (not one of the remote's), if any.
	Close() error
	// forget drops a cached copy the stream came from (after a failed
	// upload).
	forget()
	// size is the stream's length, or an estimate of it (exact false).
	size() (n int64, exact bool)
	describe() string // for the debug log
}

// openUpload opens the binary at path, or its gzip stream with gz.
func openUpload(cfg *Config, path, sum, goos, goarch string, gz bool) (uploadStream, error) {
	if gz {
		g, err := openGzip(path, sum, cfg.binaryCache(), goos, goarch)
		if err != nil {
			return nil, err
		}
		return g, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return rawUpload{f}, nil
}

// rawUpload sends the binary as it is.
type rawUpload struct{ *os.File }

func (r rawUpload) Close() error {
	r.File.Close() // read only: nothing to report
	return nil
}

func (rawUpload) forget()          {}
func (rawUpload) describe() string { return "uncompressed" }

func (r rawUpload) size() (int64, bool) {
	st, err := r.Stat()
	if err != nil {
		return 0, false
	}
	return st.Size(), true
}

// countingReader counts the bytes read through it, and notes its end.
// (The SSH session reads it from a goroutine that may outlive a failed
// command.)
type countingReader struct {
	r   io.Reader
	n   atomic.Int64
	end atomic.Bool // io.EOF was read
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	if errors.Is(err, io.EOF) {
		c.end.Store(true)
	}
	return n, err
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
