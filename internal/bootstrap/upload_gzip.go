package bootstrap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// An upload travels as a gzip stream when the remote's gzip decompresses
// the start script's probe (the GOSH GZIP line); the remote runs gzip -dc
// into the temporary file that the SHA-256 of the uncompressed binary then
// checks, as for a plain upload. A gosh binary shrinks to about 40%.
//
// uploadGzipLevel was chosen by measurement (TestUploadTime1Mbps with
// GOSH_MEASURE=1) on the stripped 14.6 MB linux/amd64 gosh, 2 CPUs: the
// upload's time over a 1 Mbps link and over loopback, compressed while
// sent (or uncompressed, or from the cache):
//
//	level          compressed  compression  1 Mbps   loopback
//	1 (BestSpeed)  6.41 MB     0.18 s       51.5 s   0.34 s
//	6 (Default)    5.74 MB     0.60 s       46.1 s   0.81 s
//	9 (Best)       5.72 MB     1.74 s       46.0 s   2.04 s
//	6, cached      5.74 MB                  46.1 s   0.29 s
//	uncompressed   14.59 MB                 117.0 s  0.21 s
//
// (The 10.8 MB gosh before the bench's network stack: 4.46 MB at level 6,
// 35.8 s instead of 87.0 s at 1 Mbps.) The stream is compressed while it
// is sent, so on a slow link only its size counts (level 6 saves 5 s over
// level 1 at 1 Mbps; level 9 saves 0.1 s over level 6) and on a link
// faster than the compressor (beyond some 80 Mbps for level 6) only its
// time: level 6 costs 0.5 s more than level 1 over loopback, level 9
// 1.7 s. That is paid once per binary: the stream is cached (see
// [openGzip]). It is a variable for the tests.
var uploadGzipLevel = defaultGzipLevel

// defaultGzipLevel is uploadGzipLevel outside the tests.
const defaultGzipLevel = gzip.DefaultCompression

// gzipProbeWord is what the start script's probe stream decompresses to.
const gzipProbeWord = "gosh"

// gzipProbe returns a printf format, nothing but octal escapes, that
// writes the gzip stream of gzipProbeWord as compress/gzip makes it. The
// start script pipes it through the remote's gzip -dc: a gzip that is
// missing, cannot decompress, or misreads Go's streams fails the probe,
// and uploads to that remote are sent uncompressed.
var gzipProbe = sync.OnceValue(func() string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, gzipProbeWord)
	zw.Close()
	var f strings.Builder
	for _, c := range b.Bytes() {
		fmt.Fprintf(&f, `\%03o`, c)
	}
	return f.String()
})

// gzipChunk is the size of the pieces the compressor hands to the SSH
// session, which sends each piece it reads as a packet of its own:
// compress/flate writes a few hundred bytes at a time, which SSH's
// per-packet overhead made some 15% larger (6 s more at 1 Mbps). 32 KiB
// is the largest data packet of x/crypto/ssh and OpenSSH.
const gzipChunk = 32 << 10

// Where a gzip stream comes from, for the debug log.
const (
	gzipFromMemory     = "from memory"
	gzipFromCompressor = "compressed while sent"
)

var (
	// errUploadEnded stops a compressor whose upload is over.
	errUploadEnded = errors.New("bootstrap: the upload ended")
	// errBinaryChanged: the binary read is not the one hashed before.
	errBinaryChanged = errors.New("the binary changed while it was uploaded")
)

// lastGzip is the gzip stream this process compressed last, kept in memory
// only when the binary cache could not keep it.
var lastGzip struct {
	mu   sync.Mutex // guards following
	sum  string     // the SHA-256 of the binary
	data []byte
}

// gzipCachePrefix begins the names of the cached gzip streams of
// goos/goarch binaries in the binary cache: gosh-GOOS-GOARCH.<sha256>.gz.
func gzipCachePrefix(goos, goarch string) string { return "gosh-" + goos + "-" + goarch + "." }

// gzipUpload is the gzip stream of a binary as an upload sends it: read
// from this process's memory or the binary cache, or compressed while it
// is sent. Close it when the upload is over.
type gzipUpload struct {
	r      io.Reader
	sum    string
	origin string         // for the log: gzipFrom… or the cache file
	f      *os.File       // the cache file read, or nil
	pr     *io.PipeReader // the compressor's output, or nil
	done   chan struct{}  // closed when the compressor has returned
	err    error          // the compressor's, once done is closed
	length int64          // the stream's length; 0 while it is compressed
	// binSize is the binary's size, and in and out what the compressor
	// has read of it and written, for the estimate of the length.
	binSize int64
	in, out atomic.Int64
}

// openGzip returns the gzip stream of the goos/goarch binary at path,
// whose SHA-256 is sum. A stream compressed here is cached in cacheDir as
// gosh-GOOS-GOARCH.<sha256>.gz (replacing the platform's earlier one) once
// it is whole and the binary read proved to be sum; with no usable
// cacheDir it is kept in memory for the rest of the process.
func openGzip(path, sum, cacheDir, goos, goarch string) (*gzipUpload, error) {
	lastGzip.mu.Lock()
	data := lastGzip.data
	if lastGzip.sum != sum {
		data = nil
	}
	lastGzip.mu.Unlock()
	if data != nil {
		return &gzipUpload{r: bytes.NewReader(data), sum: sum, origin: gzipFromMemory, length: int64(len(data))}, nil
	}
	prefix := gzipCachePrefix(goos, goarch)
	name := prefix + sum + ".gz"
	if cacheDir != "" {
		if f, err := os.Open(filepath.Join(cacheDir, name)); err == nil {
			g := &gzipUpload{r: f, sum: sum, origin: f.Name(), f: f}
			if st, err := f.Stat(); err == nil {
				g.length = st.Size()
			}
			return g, nil
		}
	}
	src, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	g := &gzipUpload{r: pr, sum: sum, origin: gzipFromCompressor, pr: pr, done: make(chan struct{})}
	if st, err := src.Stat(); err == nil {
		g.binSize = st.Size()
	}
	k := newGzipKeeper(cacheDir, prefix, name)
	go func() {
		defer close(g.done)
		defer src.Close()
		g.err = compressStream(pw, &addingReader{src, &g.in}, sum, k, &g.out)
	}()
	return g, nil
}

// size is the stream's length; while it is compressed, an estimate: the
// binary's size at the ratio so far (or at gzipRatioGuess before the
// first 64 KiB).
func (g *gzipUpload) size() (int64, bool) {
	if g.length > 0 || g.binSize == 0 {
		return g.length, g.length > 0
	}
	in, out := g.in.Load(), g.out.Load()
	if in < 64<<10 || out == 0 {
		return int64(float64(g.binSize) * gzipRatioGuess), false
	}
	return g.binSize * out / in, false
}

// gzipRatioGuess is what a gosh binary shrinks to (see uploadGzipLevel).
const gzipRatioGuess = 0.4

// addingReader adds the bytes read through it to n.
type addingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (a *addingReader) Read(p []byte) (int, error) {
	k, err := a.r.Read(p)
	a.n.Add(int64(k))
	return k, err
}

// addingWriter adds the bytes written through it to n.
type addingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (a *addingWriter) Write(p []byte) (int, error) {
	k, err := a.w.Write(p)
	a.n.Add(int64(k))
	return k, err
}

func (g *gzipUpload) Read(p []byte) (int, error) { return g.r.Read(p) }

// Close stops the compressor if it still runs and waits for it (a whole
// stream is cached by then). It returns the compressor's own error: the
// binary could not be read, or it changed since it was hashed.
func (g *gzipUpload) Close() error {
	if g.f != nil {
		g.f.Close()
	}
	if g.pr == nil {
		return nil
	}
	g.pr.CloseWithError(errUploadEnded)
	<-g.done
	if errors.Is(g.err, errUploadEnded) {
		return nil
	}
	return g.err
}

// forget drops the cached stream the upload was read from, after a failed
// upload: should the copy be bad, the next upload compresses afresh.
func (g *gzipUpload) forget() {
	switch {
	case g.f != nil:
		os.Remove(g.f.Name())
	case g.origin == gzipFromMemory:
		lastGzip.mu.Lock()
		if lastGzip.sum == g.sum {
			lastGzip.sum, lastGzip.data = "", nil
		}
		lastGzip.mu.Unlock()
	}
}

func (g *gzipUpload) describe() string { return "gzip " + g.origin }

// compressStream writes the gzip stream of src to pw, and a copy to k that
// is kept if the stream is whole and src had SHA-256 sum; it adds the
// bytes it writes to written. On an error the stream ends without its
// trailer, so the remote's gzip rejects it.
func compressStream(pw *io.PipeWriter, src io.Reader, sum string, k *gzipKeeper, written *atomic.Int64) error {
	bw := bufio.NewWriterSize(&addingWriter{io.MultiWriter(pw, k), written}, gzipChunk)
	zw, err := gzip.NewWriterLevel(bw, uploadGzipLevel)
	if err != nil {
		panic("bootstrap: bad uploadGzipLevel")
	}
	h := sha256.New()
	_, err = io.Copy(zw, io.TeeReader(src, h))
	if err == nil && hex.EncodeToString(h.Sum(nil)) != sum {
		err = errBinaryChanged
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	pw.CloseWithError(err) // nil: EOF
	k.finish(err == nil, sum)
	return err
}

// gzipKeeper keeps a copy of a gzip stream while it is sent: in a
// temporary file in the binary cache, renamed into place once the stream
// is whole, else in memory. It never fails the stream: a failed write only
// loses the copy.
type gzipKeeper struct {
	dst    string   // the cache file to create; "" keeps the copy in memory
	prefix string   // the names of dst's earlier versions, replaced by it
	tmp    *os.File // the temporary file in the cache
	mem    bytes.Buffer
	err    error // the first write error: the copy is lost
}

func newGzipKeeper(dir, prefix, name string) *gzipKeeper {
	k := &gzipKeeper{}
	if dir == "" || os.MkdirAll(dir, 0o755) != nil {
		return k
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return k
	}
	k.dst, k.prefix, k.tmp = filepath.Join(dir, name), prefix, tmp
	return k
}

func (k *gzipKeeper) Write(p []byte) (int, error) {
	switch {
	case k.err != nil:
	case k.tmp != nil:
		_, k.err = k.tmp.Write(p)
	default:
		k.mem.Write(p)
	}
	return len(p), nil
}

// finish keeps the copy if the stream was whole, else drops it.
func (k *gzipKeeper) finish(whole bool, sum string) {
	whole = whole && k.err == nil
	if k.tmp == nil {
		if whole {
			lastGzip.mu.Lock()
			lastGzip.sum, lastGzip.data = sum, k.mem.Bytes()
			lastGzip.mu.Unlock()
		}
		return
	}
	err := k.tmp.Close()
	if err == nil && whole {
		err = os.Rename(k.tmp.Name(), k.dst)
	}
	if err != nil || !whole {
		os.Remove(k.tmp.Name())
		return
	}
	pruneGzipCache(filepath.Dir(k.dst), k.prefix, filepath.Base(k.dst))
}

// pruneGzipCache removes from dir the cached streams named prefix<sha256>.gz
// other than keep (earlier builds of the platform), so that the cache
// holds one per platform.
func pruneGzipCache(dir, prefix, keep string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		sum, ok := strings.CutPrefix(n, prefix)
		sum, gz := strings.CutSuffix(sum, ".gz")
		if n != keep && ok && gz && isSHA256(sum) {
			os.Remove(filepath.Join(dir, n))
		}
	}
}
