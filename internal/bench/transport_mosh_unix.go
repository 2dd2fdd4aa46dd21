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
	"strings"
	"syscall"
	"time"

	"github.com/gosh-term/gosh/internal/connectline"
	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/pty"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// moshLive is stock mosh-server and mosh-client, the client in a pty of
// its own, with the link in a loopback relay between their UDP sockets.
type moshLive struct {
	m         *mirror
	client    *pty.Program
	relay     *linkem.UDPRelay
	serverPID int
	copied    chan struct{}
}

func startMosh(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64, predictionDisplay string) (live, error) {
	args := []string{"new", "-i", "127.0.0.1", "-c", "256", "-l", "LANG=C.UTF-8", "--"}
	cmd := exec.CommandContext(ctx, "mosh-server", append(args, spec.Argv...)...)
	cmd.Env, cmd.Dir = spec.Env, spec.Dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting mosh-server: %w", err)
	}
	var port uint16
	var key sspcrypto.Key
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if p, k, ok := connectline.Parse(sc.Text()); ok {
			port, key = p, k
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
		return nil, fmt.Errorf("mosh-server printed no CONNECT line: %s", strings.TrimSpace(stderr.String()))
	}
	mo := &moshLive{m: newMirror(spec.Cols, spec.Rows, true), serverPID: pid, copied: make(chan struct{})}
	if mo.relay, err = linkem.NewUDPRelay(netip.AddrPortFrom(loopback, port), link, seed); err != nil {
		mo.close()
		return nil, err
	}
	env := append(os.Environ()[:0:0], "TERM=xterm-256color", "LANG=C.UTF-8", "MOSH_KEY="+key.Base64(),
		"MOSH_PREDICTION_DISPLAY="+predictionDisplay, "HOME="+spec.Dir, "PATH="+os.Getenv("PATH"))
	a := mo.relay.Addr()
	mo.client, err = pty.Start(pty.Spec{Command: []string{"mosh-client", a.Addr().String(), fmt.Sprint(a.Port())},
		Env: env, Dir: spec.Dir, Cols: spec.Cols, Rows: spec.Rows})
	if err != nil {
		mo.close()
		return nil, err
	}
	mo.m.reply = func(b []byte) { _, _ = mo.client.Write(b) }
	go func() {
		defer close(mo.copied)
		_, _ = io.Copy(mo.m, mo.client)
	}()
	return mo, nil
}

func (mo *moshLive) typeKeys(b []byte) error {
	_, err := mo.client.Write(b)
	if errors.Is(err, os.ErrClosed) {
		return errors.New("mosh-client ended")
	}
	return err
}

func (mo *moshLive) screen() *mirror { return mo.m }

func (mo *moshLive) ended() bool { return isClosed(mo.copied) }

func (mo *moshLive) note() string { return moshVersion() }
func (mo *moshLive) wire() int64  { return udpWire(mo.relay.Stats()) }
func (mo *moshLive) queue() time.Duration {
	return relayQueue(mo.relay.Stats())
}
func (mo *moshLive) roam() bool { return mo.relay.Rebind() == nil }

func (mo *moshLive) close() {
	if mo.client != nil {
		mo.client.Close()
		<-mo.copied
	}
	if mo.serverPID != 0 {
		_ = syscall.Kill(mo.serverPID, syscall.SIGTERM)
	}
	if mo.relay != nil {
		mo.relay.Close()
	}
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
