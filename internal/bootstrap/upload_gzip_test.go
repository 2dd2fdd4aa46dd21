package bootstrap

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fakeBinary returns n bytes that compress about as a program does: runs
// of text between random bytes.
func fakeBinary(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 0, n)
	for len(b) < n {
		if r.IntN(2) == 0 {
			b = append(b, "runtime.gopanic internal/bootstrap.upload sync.(*Mutex).Lock "[:r.IntN(60)]...)
		} else {
			for range r.IntN(64) {
				b = append(b, byte(r.Uint32()))
			}
		}
	}
	return b[:n]
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a gzip stream: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("bad gzip stream: %v", err)
	}
	return out
}

// writeBinary writes a fake binary to a temporary file; it returns the
// path, the content and its SHA-256.
func writeBinary(t testing.TB, n int) (string, []byte, string) {
	t.Helper()
	b := fakeBinary(n)
	p := filepath.Join(t.TempDir(), "gosh")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p, b, sha256Hex(b)
}

// readGzip reads a whole upload stream and closes it.
func readGzip(t *testing.T, g *gzipUpload) []byte {
	t.Helper()
	b, err := io.ReadAll(g)
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return b
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// resetLastGzip empties the process's in-memory stream, now and after t.
func resetLastGzip(t *testing.T) {
	reset := func() {
		lastGzip.mu.Lock()
		lastGzip.sum, lastGzip.data = "", nil
		lastGzip.mu.Unlock()
	}
	reset()
	t.Cleanup(reset)
}

// TestOpenGzipDiskCache: the first upload compresses while it is read and
// leaves the stream in the cache, replacing the platform's earlier one;
// the next reads it from there; forget drops it.
func TestOpenGzipDiskCache(t *testing.T) {
	resetLastGzip(t)
	path, bin, sum := writeBinary(t, 1<<20)
	cache := t.TempDir()
	old := "gosh-linux-amd64." + sha256Hex([]byte("old")) + ".gz"
	keep := []string{"gosh-linux-amd64", "gosh-linux-arm64." + sha256Hex([]byte("old")) + ".gz", "gosh-linux-amd64.notes.gz"}
	for _, n := range append([]string{old}, keep...) {
		writeFile(t, filepath.Join(cache, n), "x")
	}

	g, err := openGzip(path, sum, cache, "linux", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if g.origin != gzipFromCompressor {
		t.Errorf("origin %q, want %q", g.origin, gzipFromCompressor)
	}
	stream := readGzip(t, g)
	if !bytes.Equal(gunzip(t, stream), bin) {
		t.Fatal("the stream does not decompress to the binary")
	}
	if len(stream) > len(bin)*3/4 {
		t.Errorf("stream of %d bytes for %d: not compressed", len(stream), len(bin))
	}
	name := "gosh-linux-amd64." + sum + ".gz"
	want := append([]string{name}, keep...)
	slices.Sort(want)
	if got := dirNames(t, cache); !slices.Equal(got, want) {
		t.Errorf("cache holds %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(cache, name)); !bytes.Equal(b, stream) {
		t.Errorf("the cached stream differs from the one sent")
	}

	g, err = openGzip(path, sum, cache, "linux", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if g.origin != filepath.Join(cache, name) {
		t.Errorf("second upload: origin %q, want the cache file", g.origin)
	}
	if got := readGzip(t, g); !bytes.Equal(got, stream) {
		t.Errorf("second upload: read %d bytes, want the cached %d", len(got), len(stream))
	}
	g.forget()
	if _, err := os.Stat(filepath.Join(cache, name)); err == nil {
		t.Errorf("forget kept the cached stream")
	}
}

// TestOpenGzipMemory: without a usable cache directory the stream is kept
// for the process instead.
func TestOpenGzipMemory(t *testing.T) {
	path, bin, sum := writeBinary(t, 256<<10)
	notDir := filepath.Join(t.TempDir(), "file")
	writeFile(t, notDir, "")
	for _, tc := range []struct{ name, cache string }{
		{"no cache", ""},
		{"cache is a file", notDir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resetLastGzip(t)
			for i, want := range []string{gzipFromCompressor, gzipFromMemory, gzipFromCompressor} {
				g, err := openGzip(path, sum, tc.cache, "linux", "amd64")
				if err != nil {
					t.Fatal(err)
				}
				if g.origin != want {
					t.Errorf("upload %d: origin %q, want %q", i+1, g.origin, want)
				}
				if !bytes.Equal(gunzip(t, readGzip(t, g)), bin) {
					t.Errorf("upload %d: the stream does not decompress to the binary", i+1)
				}
				if i == 1 {
					g.forget()
				}
			}
		})
	}
}

// TestOpenGzipBinaryChanged: a binary that is not the one hashed (replaced
// since) ends the stream with an error, before its trailer, and nothing is
// cached.
func TestOpenGzipBinaryChanged(t *testing.T) {
	resetLastGzip(t)
	path, _, _ := writeBinary(t, 256<<10)
	cache := t.TempDir()
	for _, dir := range []string{cache, ""} {
		g, err := openGzip(path, sha256Hex([]byte("the binary hashed")), dir, "linux", "amd64")
		if err != nil {
			t.Fatal(err)
		}
		stream, err := io.ReadAll(g)
		if !errors.Is(err, errBinaryChanged) {
			t.Errorf("cache %q: reading the stream: %v, want %v", dir, err, errBinaryChanged)
		}
		if err := g.Close(); !errors.Is(err, errBinaryChanged) {
			t.Errorf("cache %q: Close = %v, want %v", dir, err, errBinaryChanged)
		}
		if wholeGzip(stream) {
			t.Errorf("cache %q: the stream sent is a whole gzip stream", dir)
		}
	}
	if got := dirNames(t, cache); len(got) > 0 {
		t.Errorf("cache holds %q, want nothing", got)
	}
	lastGzip.mu.Lock()
	defer lastGzip.mu.Unlock()
	if lastGzip.data != nil {
		t.Errorf("the stream was kept in memory")
	}
}

// wholeGzip reports whether b is a gzip stream with a good trailer.
func wholeGzip(b []byte) bool {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return false
	}
	_, err = io.ReadAll(zr)
	return err == nil
}

// TestOpenGzipUploadEnded: an upload that stops reading (the remote
// failed) stops the compressor; Close waits for it, reports no error of
// its own, and nothing half-written is cached.
func TestOpenGzipUploadEnded(t *testing.T) {
	resetLastGzip(t)
	path, _, sum := writeBinary(t, 4<<20)
	cache := t.TempDir()
	g, err := openGzip(path, sum, cache, "linux", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(g, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("Close = %v, want nil", err)
	}
	select {
	case <-g.done:
	default:
		t.Errorf("Close returned before the compressor")
	}
	if got := dirNames(t, cache); len(got) > 0 {
		t.Errorf("cache holds %q, want nothing", got)
	}
}

// TestGzipUploadSize: a stream compressed while it is sent estimates its
// length from the ratio so far (within 10% half-way); a cached or
// remembered one knows it.
func TestGzipUploadSize(t *testing.T) {
	resetLastGzip(t)
	path, _, sum := writeBinary(t, 4<<20)
	cache := t.TempDir()
	g, err := openGzip(path, sum, cache, "linux", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	binSize := float64(4 << 20)
	guess := int64(binSize * gzipRatioGuess)
	if n, exact := g.size(); exact || n != guess {
		t.Errorf("before any byte: size %d, exact %v; want the guess %d", n, exact, guess)
	}
	half := make([]byte, 1<<20)
	if _, err := io.ReadFull(g, half); err != nil {
		t.Fatal(err)
	}
	estimate, exact := g.size()
	rest := readGzip(t, g)
	total := int64(len(half) + len(rest))
	if exact || estimate < total*9/10 || estimate > total*11/10 {
		t.Errorf("after %d of %d bytes: size %d, exact %v; want within 10%% of %d, an estimate", len(half), total, estimate, exact, total)
	}

	g, err = openGzip(path, sum, cache, "linux", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	if n, exact := g.size(); !exact || n != total {
		t.Errorf("cached: size %d, exact %v; want %d, exact", n, exact, total)
	}
	g.Close()
}
