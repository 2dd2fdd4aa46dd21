//go:build unix

package bootstrap

import (
	"context"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/bench/sshlink"
	"github.com/gosh-term/gosh/internal/linkem"
)

// TestUploadTimeLink measures a first connect over one of gosh bench's
// emulated links (GOSH_MEASURE_LINK, default cs244-3g: 225 ms, 1% loss,
// 1 Mbit/s and a 100-packet queue each way): the SSH connection crosses
// the link as TCP between two userspace stacks (gVisor, as the bench's
// SSH baseline does), through a proxy to a real sshd on loopback. It
// uploads the binary at GOSH_MEASURE_BINARY, default this tree's gosh
// built as released, five times (fresh remote, a cached gzip stream, so
// that only the link counts; the link's loss makes TCP's time vary by
// half), then connects once more without an upload. (It is long because
// each figure it logs needs its own few lines.)
// It only logs:
//
//	GOSH_MEASURE=1 go test -run TestUploadTimeLink -v -timeout 60m ./internal/bootstrap/
func TestUploadTimeLink(t *testing.T) {
	if os.Getenv(measureEnv) != "1" {
		t.Skipf("a measurement of several minutes: run with %s=1", measureEnv)
	}
	name := os.Getenv("GOSH_MEASURE_LINK")
	if name == "" {
		name = "cs244-3g"
	}
	profile, err := linkem.LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv("GOSH_MEASURE_BINARY")
	if bin == "" {
		bin = buildStripped(t)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer func(l int) { uploadGzipLevel = l }(uploadGzipLevel)
	uploadGzipLevel = defaultGzipLevel // as released (the tests use BestSpeed)
	cache := t.TempDir()
	g, err := openGzip(bin, sha256Hex(data), cache, runtime.GOOS, runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	gz, _ := io.Copy(io.Discard, g)
	g.Close()
	t.Logf("link %s (%s); binary %d bytes, gzip stream %d bytes", profile.Name, profile.Description, len(data), gz)
	if profile.Up.Rate > 0 {
		t.Logf("the stream at the link's rate alone: %.1f s", float64(gz)*8/profile.Up.Rate)
	}
	f := newUploadFixture(t)
	var connects []time.Duration
	for i := range 5 {
		port := linkProxy(t, f.s.addr(), profile, uint64(i+1)*1000)
		trustPort(t, f.h, f.s, port)
		sent, upload, connect := measureConnectAt(t, f, bin, cache, port)
		connects = append(connects, connect)
		t.Logf("run %d: sent %d bytes; upload %.1f s (%.0f KB/s); whole first connect %.1f s",
			i+1, sent, upload.Seconds(), float64(sent)/upload.Seconds()/1e3, connect.Seconds())
	}
	slices.Sort(connects)
	t.Logf("first connect: median %.1f s (%.1f-%.1f s)", connects[2].Seconds(), connects[0].Seconds(), connects[4].Seconds())

	// A connect that uploads nothing: the SSH handshake and two runs of
	// the start script over the same link.
	port := linkProxy(t, f.s.addr(), profile, 4000)
	trustPort(t, f.h, f.s, port)
	var logs, stderr syncBuffer
	cfg := f.cfg(&logs, &stderr)
	cfg.LocalBinary, cfg.BinaryCache = bin, cache
	cfg.Destination = "root@127.0.0.1:" + strconv.Itoa(port)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, logs.String())
	}
	syscall.Kill(res.ServerPID, syscall.SIGKILL)
	t.Logf("a connect with gosh already uploaded: %.1f s", time.Since(start).Seconds())
}

// linkProxy forwards the TCP connections it accepts on a loopback port to
// target across the emulated link p: each crosses two userspace TCP/IP
// stacks (sshlink.Net) joined by a linkem pipe each way. It returns the
// port; t's cleanup closes it all. (It is long because it keeps the
// harness's parts, the pipes, the stacks, both listeners and what closes
// them, in one place.)
func linkProxy(t testing.TB, target string, p linkem.Profile, seed uint64) int {
	t.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex // guards following
		pipes []*linkem.Pipe
		conns []net.Conn
	)
	keep := func(c ...net.Conn) {
		mu.Lock()
		conns = append(conns, c...)
		mu.Unlock()
	}
	mk := func(cfg linkem.Config, seed uint64) func(func([]byte)) sshlink.Link {
		return func(deliver func([]byte)) sshlink.Link {
			pipe := linkem.NewPipe(cfg, seed, deliver)
			mu.Lock()
			pipes = append(pipes, pipe)
			mu.Unlock()
			return pipe
		}
	}
	n, err := sshlink.NewNet(mk(p.Up, seed), mk(p.Down, seed+1))
	if err != nil {
		t.Fatal(err)
	}
	far, err := n.Listen(22)
	if err != nil {
		t.Fatal(err)
	}
	near, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		near.Close()
		far.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
		n.Close()
		for _, pipe := range pipes {
			pipe.Close()
		}
	})
	// forward joins each connection l accepts to one dial makes.
	forward := func(l net.Listener, dial func() (net.Conn, error)) {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := dial()
			if err != nil {
				c.Close()
				continue
			}
			keep(c, u)
			wg.Add(2)
			go func() { defer wg.Done(); copyHalf(c, u) }()
			go func() { defer wg.Done(); copyHalf(u, c) }()
		}
	}
	wg.Add(2)
	go forward(far, func() (net.Conn, error) { return net.Dial("tcp", target) }) // on to the sshd
	go forward(near, func() (net.Conn, error) { return n.Dial(ctx, 22) })        // the client's, onto the link
	return near.Addr().(*net.TCPAddr).Port
}

// copyHalf copies src to dst, then half-closes dst.
func copyHalf(dst, src net.Conn) {
	io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}
