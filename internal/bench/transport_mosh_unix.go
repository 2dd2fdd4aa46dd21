//go:build unix

package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gosh-term/gosh/internal/connectline"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/pty"
	"github.com/gosh-term/gosh/internal/ssp"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// programLive is a server program that prints a CONNECT line and detaches
// (mosh-server new, gosh server new) and a client program in a pty of its
// own (mosh-client, gosh connect --direct), as a user runs them, with the
// link in a loopback relay between their UDP sockets.
type programLive struct {
	m         *mirror
	client    *pty.Program
	relay     *linkem.UDPRelay
	serverPID int
	copied    chan struct{}
	name      string // the client program, for errors
	about     string // note
	side      string // a directory of the run's own, removed by close
}

// programs says how to start one kind of programLive.
type programs struct {
	// server is the server's command line before "--" and the program.
	server []string
	// serverEnv is added to the program's environment for the server.
	serverEnv []string
	// client is the client's command line, given the relay's address.
	client func(host, port string) []string
	// clientEnv is added to the client's environment.
	clientEnv []string
	// note describes the transport for the report.
	note string
}

// startMosh runs stock mosh-server and mosh-client.
func startMosh(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64, predictionDisplay string) (live, error) {
	return startPrograms(ctx, spec, link, seed, programs{
		server:    []string{"mosh-server", "new", "-i", "127.0.0.1", "-c", "256", "-l", "LANG=C.UTF-8"},
		client:    func(host, port string) []string { return []string{"mosh-client", host, port} },
		clientEnv: []string{"MOSH_PREDICTION_DISPLAY=" + predictionDisplay},
		note:      moshVersion(),
	})
}

// startGoshBinary runs the gosh binary exe as a user does: "gosh server
// new" and "gosh connect --direct" (the two halves of gosh connect).
func startGoshBinary(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64, exe string, withPrediction bool, pacing ssp.Pacing) (live, error) {
	mode := "adaptive"
	if !withPrediction {
		mode = "never"
	}
	return startPrograms(ctx, spec, link, seed, programs{
		server: []string{exe, "server", "new", "-i", "127.0.0.1", "-p", "0", "-c", "256", "-l", "LANG=C.UTF-8",
			"--pacing", pacing.String()},
		client: func(host, port string) []string {
			return []string{exe, "connect", "--direct", "--predict", mode, "--pacing", pacing.String(), host, port}
		},
		note: "gosh server new and gosh connect --direct (" + goshVersion(exe) + "), as a user runs them",
	})
}

// startPrograms starts the server, the relay and the client. It reads as
// the sequence of steps it is, each undone by close if a later one fails;
// hence its length.
func startPrograms(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64, p programs) (live, error) {
	side, err := os.MkdirTemp("", "gosh-bench-side-")
	if err != nil {
		return nil, err
	}
	// The programs' own files (gosh's session records and control
	// sockets) go in a directory of their own, not in the workload's.
	for _, d := range []string{"run", "state"} {
		if err := os.Mkdir(filepath.Join(side, d), 0o700); err != nil {
			os.RemoveAll(side)
			return nil, err
		}
	}
	xdg := []string{"XDG_RUNTIME_DIR=" + filepath.Join(side, "run"), "XDG_STATE_HOME=" + filepath.Join(side, "state")}
	cmd := exec.CommandContext(ctx, p.server[0], append(append(p.server[1:], "--"), spec.Argv...)...)
	cmd.Env, cmd.Dir = append(append(append([]string(nil), spec.Env...), xdg...), p.serverEnv...), spec.Dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(side)
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(side)
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(p.server[0]), err)
	}
	var port uint16
	var key sspcrypto.Key
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if pt, k, ok := connectline.Parse(sc.Text()); ok {
			port, key = pt, k
		}
	}
	_ = cmd.Wait() // it forks the server and exits
	pid := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		if d, ok := connectline.ParseDetached(line); ok {
			pid = d.PID
		}
	}
	if port == 0 || pid == 0 {
		if pid != 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
		os.RemoveAll(side)
		return nil, fmt.Errorf("%s printed no CONNECT line: %s", filepath.Base(p.server[0]), strings.TrimSpace(stderr.String()))
	}
	pl := &programLive{m: newMirror(spec.Cols, spec.Rows, true), serverPID: pid, copied: make(chan struct{}),
		name: filepath.Base(p.client("", "")[0]), about: p.note, side: side}
	if pl.relay, err = linkem.NewUDPRelay(netip.AddrPortFrom(loopback, port), link, seed); err != nil {
		pl.close()
		return nil, err
	}
	env := append(append([]string{"TERM=xterm-256color", "LANG=C.UTF-8", "MOSH_KEY=" + key.Base64(),
		"HOME=" + side, "PATH=" + os.Getenv("PATH")}, xdg...), p.clientEnv...)
	a := pl.relay.Addr()
	pl.client, err = pty.Start(pty.Spec{Command: p.client(a.Addr().String(), fmt.Sprint(a.Port())),
		Env: env, Dir: side, Cols: spec.Cols, Rows: spec.Rows})
	if err != nil {
		pl.close()
		return nil, err
	}
	pl.m.reply = func(b []byte) { _, _ = pl.client.Write(b) }
	go func() {
		defer close(pl.copied)
		_, _ = io.Copy(pl.m, pl.client)
	}()
	return pl, nil
}

func (pl *programLive) typeKeys(b []byte) error {
	_, err := pl.client.Write(b)
	if errors.Is(err, os.ErrClosed) {
		return errors.New(pl.name + " ended")
	}
	return err
}

func (pl *programLive) screen() *mirror { return pl.m }

func (pl *programLive) ended() bool { return isClosed(pl.copied) }

func (pl *programLive) note() string { return pl.about }
func (pl *programLive) wire() int64  { return udpWire(pl.relay.Stats()) }
func (pl *programLive) queue() time.Duration {
	return relayQueue(pl.relay.Stats())
}
func (pl *programLive) roam() bool { return pl.relay.Rebind() == nil }

func (pl *programLive) close() {
	if pl.client != nil {
		pl.client.Close()
		<-pl.copied
	}
	if pl.serverPID != 0 {
		_ = syscall.Kill(pl.serverPID, syscall.SIGTERM)
	}
	if pl.relay != nil {
		pl.relay.Close()
	}
	os.RemoveAll(pl.side)
}

// moshVersion is mosh-server's version line.
func moshVersion() string {
	out, err := exec.Command("mosh-server", "--version").Output()
	if err != nil {
		return "stock mosh"
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return "stock " + strings.TrimSpace(line)
}

// goshVersion is the gosh binary's version line.
func goshVersion(exe string) string {
	out, err := exec.Command(exe, "version").Output()
	if err != nil {
		return filepath.Base(exe)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line)
}

// goshBinarySupported: the gosh rows can run the gosh binary here.
const goshBinarySupported = true
