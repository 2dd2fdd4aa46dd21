//go:build unix

package bootstrap

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// measureEnv enables the measurements, which take minutes.
const measureEnv = "GOSH_MEASURE"

// TestUploadTime1Mbps measures what gzip does to the first connect: it
// only logs (it is not a timed assertion). Run it without the race
// detector, which slows compress/flate twentyfold:
//
//	GOSH_MEASURE=1 go test -run TestUploadTime1Mbps -v -timeout 30m ./internal/bootstrap/
//
// It builds gosh as released (go build -ldflags='-s -w'), times
// compress/gzip at every level, then bootstraps that binary onto a real
// sshd whose remote has no gosh: over a 1 Mbps link (a loopback proxy
// paced to 125,000 bytes/s each way, no added delay) and over loopback
// itself, uncompressed (a remote without gzip), gzip-compressed while sent
// at levels 1, 6 and 9, and from the cached stream. "upload" is the upload
// session alone, "connect" the whole Run (SSH handshake, start script,
// upload, start script again, CONNECT line).
func TestUploadTime1Mbps(t *testing.T) {
	if os.Getenv(measureEnv) != "1" {
		t.Skipf("a measurement of several minutes: run with %s=1", measureEnv)
	}
	bin := buildStripped(t)
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	const rate = 125_000 // bytes/s: 1 Mbps
	t.Logf("binary: %d bytes; raw at 1 Mbps: %.1f s", len(data), float64(len(data))/rate)
	measureLevels(t, data, rate)

	withGzip := newUploadFixture(t)
	noGzip := newUploadFixturePATH(t, toolDir(t, "sh", "uname", "grep", "mkdir", "cat", "rm", "chmod", "mv", "sha256sum"))
	defer func(l int) { uploadGzipLevel = l }(uploadGzipLevel)
	uploadGzipLevel = gzip.DefaultCompression
	warm := t.TempDir()
	g, err := openGzip(bin, sha256Hex(data), warm, runtime.GOOS, runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, g)
	g.Close()
	variants := []struct {
		name  string
		f     *uploadFixture
		level int
		cache string // "" for a fresh one
	}{
		{"raw", noGzip, gzip.DefaultCompression, ""},
		{"gzip -1", withGzip, gzip.BestSpeed, ""},
		{"gzip -6", withGzip, gzip.DefaultCompression, ""},
		{"gzip -9", withGzip, gzip.BestCompression, ""},
		{"gzip -6 cached", withGzip, gzip.DefaultCompression, warm},
	}
	for _, link := range []struct {
		name string
		rate int // bytes/s; 0 for loopback
	}{{"1 Mbps", rate}, {"loopback", 0}} {
		t.Logf("%-8s  %-15s  %11s  %9s  %9s", link.name, "upload", "bytes sent", "upload", "connect")
		for _, v := range variants {
			uploadGzipLevel = v.level
			sent, upload, connect := measureConnect(t, v.f, bin, v.cache, link.rate)
			t.Logf("%-8s  %-15s  %11d  %8.2fs  %8.2fs", link.name, v.name, sent, upload.Seconds(), connect.Seconds())
		}
	}
}

// measureLevels logs the size and compression time of data at every
// gzip level (the best of three runs), the time the local gzip -dc takes
// to decompress it (the remote's work), and the time at rate bytes/s.
func measureLevels(t *testing.T, data []byte, rate int) {
	t.Logf("%-5s  %10s  %6s  %11s  %11s  %9s", "level", "bytes", "ratio", "compression", "gzip -dc", "at 1 Mbps")
	for level := gzip.BestSpeed; level <= gzip.BestCompression; level++ {
		var best time.Duration
		var out bytes.Buffer
		for range 3 {
			out.Reset()
			start := time.Now()
			zw, _ := gzip.NewWriterLevel(&out, level)
			zw.Write(data)
			zw.Close()
			if d := time.Since(start); best == 0 || d < best {
				best = d
			}
		}
		cmd := exec.Command("gzip", "-dc")
		cmd.Stdin = bytes.NewReader(out.Bytes())
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("gzip -dc: %v", err)
		}
		dc := time.Since(start)
		t.Logf("%-5d  %10d  %5.1f%%  %10.3fs  %10.3fs  %8.1fs", level, out.Len(), 100*float64(out.Len())/float64(len(data)),
			best.Seconds(), dc.Seconds(), float64(out.Len())/float64(rate))
	}
}

var uploadedLogRE = regexp.MustCompile(`bootstrap: uploaded \S+: sent (\d+) bytes in (\S+)`)

// measureConnect runs a first connect of bin to f's remote (emptied of
// uploads first), through a link of rate bytes/s (0: direct), with the
// binary cache cache ("" for an empty one). It returns the bytes the
// upload sent, its time and the whole connect's.
func measureConnect(t *testing.T, f *uploadFixture, bin, cache string, rate int) (sent int64, upload, connect time.Duration) {
	port := 0
	if rate > 0 {
		port = pacedProxy(t, f.s.addr(), rate)
		trustPort(t, f.h, f.s, port)
	}
	return measureConnectAt(t, f, bin, cache, port)
}

// measureConnectAt is measureConnect through a proxy to the sshd on
// loopback port (0: no proxy).
func measureConnectAt(t *testing.T, f *uploadFixture, bin, cache string, port int) (sent int64, upload, connect time.Duration) {
	if err := os.RemoveAll(filepath.Join(f.remoteHome, ".local")); err != nil {
		t.Fatal(err)
	}
	var logs, stderr syncBuffer
	cfg := f.cfg(&logs, &stderr)
	cfg.LocalBinary = bin
	cfg.BinaryCache = cache
	if cache == "" {
		cfg.BinaryCache = t.TempDir()
	}
	if port != 0 {
		cfg.Destination = "root@127.0.0.1:" + strconv.Itoa(port)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, cfg)
	connect = time.Since(start)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, logs.String())
	}
	syscall.Kill(res.ServerPID, syscall.SIGKILL)
	m := uploadedLogRE.FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no upload logged:\n%s", logs.String())
	}
	sent, _ = strconv.ParseInt(m[1], 10, 64)
	upload, _ = time.ParseDuration(m[2])
	return sent, upload, connect
}

// buildStripped builds ./cmd/gosh as the release does (-s -w) into a
// temporary directory.
func buildStripped(t *testing.T) string {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "gosh")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/gosh")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// trustPort records s's host keys for 127.0.0.1:port (a proxy to s).
func trustPort(t testing.TB, h *testHome, s *sshd, port int) {
	t.Helper()
	var b bytes.Buffer
	for _, k := range s.hostKeys {
		b.WriteString(knownHostsLine("[127.0.0.1]:"+strconv.Itoa(port), k) + "\n")
	}
	appendFile(t, h.knownHosts(), b.String())
}

// pacedProxy forwards the TCP connections it accepts on a loopback port to
// target, at most rate bytes/s each way: a link of 8*rate bit/s with no
// delay of its own. It returns the port; t's cleanup closes it all and
// waits for its goroutines.
func pacedProxy(t testing.TB, target string, rate int) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex // guards following
		conns []net.Conn
	)
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, u)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); pace(u, c, rate) }()
			go func() { defer wg.Done(); pace(c, u, rate) }()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// pace copies src to dst as a link of rate bytes/s would deliver it: each
// piece (at most paceSlice of the link) arrives when the link has had the
// time to send it after the pieces before. (Sleeping is the link's
// transmission time here, not a synchronisation.) At the end it
// half-closes dst.
func pace(dst, src net.Conn, rate int) {
	buf := make([]byte, max(rate*int(paceSlice/time.Millisecond)/1000, 512))
	var free time.Time // when the link has sent everything it was given
	for {
		n, err := src.Read(buf)
		if n > 0 {
			// A link idle for less than a slice (this goroutine overslept
			// or read late) lost no time: without the slack, every
			// oversleep would slow the link down.
			start := later(free, time.Now().Add(-paceSlice))
			free = start.Add(time.Duration(n) * time.Second / time.Duration(rate))
			time.Sleep(time.Until(free))
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			if tc, ok := dst.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			return
		}
	}
}

// paceSlice is the most a paced link sends at once.
const paceSlice = 10 * time.Millisecond

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
