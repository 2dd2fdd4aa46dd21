package bench

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
	"github.com/gosh-term/gosh/internal/predict"
	"github.com/gosh-term/gosh/internal/ssp"
)

// Transport names, as --with takes them.
const (
	TransportSSH           = "ssh"
	TransportGosh          = "gosh"
	TransportGoshNoPredict = "gosh-nopredict"
	TransportMosh          = "mosh"
	TransportOpenSSH       = "openssh"
	TransportMoshNoPredict = "mosh-nopredict"
)

// Transports lists every transport a typing run can compare.
func Transports() []string {
	return []string{TransportSSH, TransportGosh, TransportGoshNoPredict, TransportMosh, TransportMoshNoPredict, TransportOpenSSH}
}

// remoteSpec is the program a run starts on the "server" side, and the
// terminal it runs in.
type remoteSpec struct {
	Argv       []string
	Env        []string
	Dir        string
	Cols, Rows int
	// trace, if not nil, is given the program's output by a transport
	// whose server side runs in this process; the others ignore it.
	trace *serverTrace
}

// live is one transport carrying a session over an emulated link: what
// is typed goes in through typeKeys, and the client's screen is the
// mirror.
type live interface {
	typeKeys(b []byte) error
	screen() *mirror
	// wire returns the bytes that crossed the link so far, both ways:
	// whole IP packets (for gosh and mosh, UDP payloads with their IP
	// and UDP headers).
	wire() int64
	// queue returns the longest time a packet spent in the link's
	// bottleneck so far, either way (waiting and being transmitted).
	queue() time.Duration
	// roam makes the client appear at a new address, as after a move to
	// another network; it reports false if the transport cannot follow.
	roam() bool
	// note says how the transport runs, for the report ("" for nothing).
	note() string
	// ended reports whether the session is over: the shell exited, or
	// the client gave up.
	ended() bool
	close()
}

// starter starts a transport over a link.
type starter func(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64) (live, error)

// transportConfig is how the gosh transports run.
type transportConfig struct {
	// pacing is the gosh transports' pacing.
	pacing ssp.Pacing
	// gosh is the gosh binary, run as a user runs it (gosh server new,
	// gosh connect --direct in a pty); "" runs the client and server
	// loops in this process.
	gosh string
}

// predicts reports whether the named transport has a prediction engine
// (speculative local echo): only then can it show a wrong prediction.
func predicts(name string) bool { return name == TransportGosh || name == TransportMosh }

// starterFor returns how to start the named transport, or an error saying
// why it cannot run here.
func starterFor(name string, c transportConfig) (starter, error) {
	switch name {
	case TransportSSH:
		return startSSH, nil
	case TransportGosh, TransportGoshNoPredict:
		withPrediction := name == TransportGosh
		if c.gosh != "" && goshBinarySupported {
			return func(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64) (live, error) {
				return startGoshBinary(ctx, spec, link, seed, c.gosh, withPrediction, c.pacing)
			}, nil
		}
		return func(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64) (live, error) {
			return startGosh(ctx, spec, link, seed, withPrediction, c.pacing)
		}, nil
	case TransportOpenSSH:
		if runtime.GOOS == "windows" {
			return nil, errors.New("the system's OpenSSH is benchmarked on Unix only")
		}
		if _, _, err := opensshTools(); err != nil {
			return nil, err
		}
		return startOpenSSH, nil
	case TransportMosh, TransportMoshNoPredict:
		if runtime.GOOS == "windows" {
			return nil, errors.New("stock mosh-server and mosh-client run on Unix only")
		}
		for _, p := range []string{"mosh-server", "mosh-client"} {
			if _, err := exec.LookPath(p); err != nil {
				return nil, fmt.Errorf("%s is not installed (Debian: apt install mosh)", p)
			}
		}
		display := "adaptive"
		if name == TransportMoshNoPredict {
			display = "never"
		}
		return func(ctx context.Context, spec remoteSpec, link linkem.Profile, seed uint64) (live, error) {
			return startMosh(ctx, spec, link, seed, display)
		}, nil
	}
	return nil, fmt.Errorf("unknown transport %q: want one of %s", name, strings.Join(Transports(), ", "))
}

// predictMode is the prediction gosh runs with: mosh's default.
const predictMode = predict.Adaptive

// closeWait bounds how long closing a transport waits for a clean
// shutdown over a slow link before it tears everything down.
const closeWait = 5 * time.Second
