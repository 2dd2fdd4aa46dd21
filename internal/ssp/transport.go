package ssp

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// Config configures a [Transport].
type Config struct {
	// Key is the session key shared by both sides.
	Key sspcrypto.Key

	// Server selects the server side: it sends in direction ToClient,
	// learns and follows the client's address (roaming), and forgets it
	// after ServerAssociationTimeout of silence. The client sends in
	// direction ToServer to the fixed address Remote.
	Server bool

	// Remote is the server's address (client only; required). A server
	// leaves it zero and learns the client's address from its first
	// authentic datagram.
	Remote netip.AddrPort

	// MaxDatagram is the datagram size budget in bytes: the UDP payload
	// of the largest datagram sent. Zero means Mosh's choice by address
	// family: for a client, [DatagramBudget] of Remote; for a server,
	// MaxDatagramIPv6, which is safe for both families (pass
	// DatagramBudget of the bound address to match Mosh exactly).
	MaxDatagram int

	// SendMinDelay is the collection delay between the first change of
	// the local state and the frame that carries it. Zero means Mosh's:
	// ServerSendMinDelay or ClientSendMinDelay.
	SendMinDelay time.Duration

	// Pacing is when changed states are sent: PacingGosh (the zero
	// value) at once on an idle path and by the path's queue otherwise,
	// PacingMosh with Mosh's exact timing (see [Pacing]). SendMinDelay
	// is PacingMosh's collection delay, and PacingGosh's on a busy path.
	Pacing Pacing

	// KnownStateProbability is the reference-state policy: the
	// probability that a frame is diffed from the known (acknowledged)
	// receiver state instead of the assumed one. Zero is Mosh's rule
	// (assumed state, with the prospective-resend exception); one always
	// diffs from the acknowledged state.
	KnownStateProbability float64

	// LocalCaps is the set of gosh extensions this side supports, sent in
	// every instruction (field 8) when non-zero. Stock Mosh ignores it.
	LocalCaps uint64

	// Epoch is a client's epoch (docs/protocol.md section 12.4): 0 for a
	// new session; above 0 for a client that resumes a session or takes
	// it over, whose initial states are then the canonical ones the
	// server restarts from ([Transport.SetEpochStates]). Sent in every
	// instruction when above 0; only a gosh server understands it.
	Epoch uint64
	// ResumeFrom is sent with Epoch (GoshResumeFrom): for gosh, the first
	// scrollback line the client lacks.
	ResumeFrom uint64
	// FirstSeq is the first sequence number to seal with (a resumed
	// client continues above every number it may have used under the
	// key), and ReserveSeq, if not nil, is called before sealing with a
	// number at or above the last limit it returned (FirstSeq at first):
	// it must make the new limit durable, so that a client that dies and
	// resumes never reuses a nonce. An error stops the sending.
	FirstSeq   uint64
	ReserveSeq func(next uint64) (limit uint64, err error)

	// Rand supplies chaff and policy draws; nil means crypto/rand.
	Rand io.Reader

	// Logf receives the transport's rare log lines (roaming, detaching,
	// a peer speaking another protocol version); nil discards them.
	Logf logf.Func
}

// DatagramBudget returns Mosh's datagram budget for a socket of addr's
// family: MaxDatagramIPv6 for an IPv6 address (IPv4-mapped ones
// included, as they travel over an IPv6 socket), else MaxDatagramIPv4.
func DatagramBudget(addr netip.Addr) int {
	if addr.Is6() {
		return MaxDatagramIPv6
	}
	return MaxDatagramIPv4
}

// Transport is one side of an SSP session (docs/protocol.md sections 3 to
// 7): it keeps the peer's copy of the local state L in sync with
// [Transport.Current], and keeps the newest state R the peer sent. It is
// a pure core: it performs no I/O and reads no clock. The session loop
// feeds it datagrams with [Transport.Receive], calls [Transport.Tick]
// after every event and writes what Tick returns to
// [Transport.RemoteAddr], and arms its one timer at
// [Transport.NextDeadline].
//
// A Transport is not safe for concurrent use: one goroutine owns it.
type Transport[L State[L], R State[R]] struct {
	cfg      Config
	link     link
	sender   *sender[L]
	receiver *receiver[R]
	rand     *randSource
	comp     compressor
	frag     Fragmenter
	asm      Assembly
	stats    Stats
	peerCaps uint64
	// Epochs (docs/protocol.md section 12.4).
	epoch      uint64
	resumeFrom uint64        // the client's GoshResumeFrom of the epoch
	epochInit  func() (L, R) // the canonical initial states; nil: no epochs (client)
	notice     []byte        // sent in every instruction (server)
	peerNotice string        // the server's notice to this client
	exit       uint64        // GoshExit, sent in every instruction (server)
	peerExit   uint64        // the server's GoshExit (client)
	// session is GoshSession, sent (server) until the client acknowledges
	// a state numbered sessionFrom or above: every instruction carrying
	// such a state carries it.
	session     []byte
	sessionFrom uint64
	sessionHeld bool   // the client has the session
	peerSession string // the server's GoshSession (client)
	// roundtrip is the send time of the newest local state the peer has
	// acknowledged, as of the last instruction received (zero before).
	roundtrip     time.Time
	warnedVersion bool

	// Scratch space, reused by every Tick (send) and Receive (inflated).
	chaff      []byte
	encoded    []byte // the instruction's protobuf encoding
	compressed []byte
	frags      []Fragment
	fragBuf    []byte
	arena      []byte   // the sealed datagrams, back to back
	ends       []int    // where each datagram ends in arena
	out        [][]byte // what Tick returns: slices of arena
	inflated   []byte
	// Aux datagrams (auxdatagram.go).
	auxPlain, auxOut []byte
	aux              []byte // the stream packet the last Receive took
}

// NewTransport returns a transport whose live local state is local (the
// caller keeps mutating it through [Transport.Current]) and whose peer
// starts from remote; both sides' state 0 must be what the peer uses as
// its own initial state (for Mosh: a blank terminal and an empty input
// stream). now is the creation time.
func NewTransport[L State[L], R State[R]](cfg Config, local L, remote R, now time.Time) (*Transport[L, R], error) {
	sess, err := sspcrypto.NewSession(cfg.Key)
	if err != nil {
		return nil, fmt.Errorf("ssp: %w", err)
	}
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	t := &Transport[L, R]{cfg: cfg, rand: newRandSource(cfg.Rand)}
	t.link = link{
		sess: sess, dir: sspcrypto.ToServer, server: cfg.Server, clock: msClock{now}, logf: cfg.Logf,
		rtt: NewRTT(), remote: cfg.Remote, hasRemote: !cfg.Server, lastPortAt: now,
		budget: cfg.MaxDatagram, pt: make([]byte, 0, MaxReceive),
	}
	if cfg.Server {
		t.link.dir = sspcrypto.ToClient
	}
	t.link.seq, t.link.seqLimit, t.link.reserve = cfg.FirstSeq, cfg.FirstSeq, cfg.ReserveSeq
	t.frag.id = cfg.FirstSeq // fragment ids stay above those of an earlier client of the key
	t.epoch, t.resumeFrom = cfg.Epoch, cfg.ResumeFrom
	t.sender = newSender(local, now, &t.link.rtt, cfg.SendMinDelay, cfg.Pacing, cfg.KnownStateProbability, t.rand)
	t.sender.server = cfg.Server
	t.receiver = newReceiver(remote, now)
	t.link.onRTT = func(now time.Time, sample time.Duration) {
		t.sender.path.sample(now, sample, t.link.rtt.SendInterval())
	}
	return t, nil
}

// fill validates cfg and fills in its defaults.
func (cfg *Config) fill() error {
	if !cfg.Server && !cfg.Remote.IsValid() {
		return errors.New("ssp: a client needs the server's address")
	}
	if cfg.MaxDatagram == 0 {
		cfg.MaxDatagram = MaxDatagramIPv6
		if !cfg.Server {
			cfg.MaxDatagram = DatagramBudget(cfg.Remote.Addr())
		}
	}
	if cfg.MaxDatagram < minDatagramBudget || cfg.MaxDatagram > MaxReceive {
		return fmt.Errorf("ssp: datagram budget %d outside [%d, %d]", cfg.MaxDatagram, minDatagramBudget, MaxReceive)
	}
	if cfg.SendMinDelay == 0 {
		cfg.SendMinDelay = ClientSendMinDelay
		if cfg.Server {
			cfg.SendMinDelay = ServerSendMinDelay
		}
	}
	if !(cfg.KnownStateProbability >= 0 && cfg.KnownStateProbability <= 1) {
		return fmt.Errorf("ssp: known-state probability %v outside [0, 1]", cfg.KnownStateProbability)
	}
	return nil
}

// Tick sends whatever is due at now (docs/protocol.md section 7.4): new data,
// a retransmission, an ack, a heartbeat or a shutdown try. It returns the
// datagrams to write, in order, to [Transport.RemoteAddr]; they are valid
// until the next call to Tick. Call Tick after every event (a datagram, a
// change to the local state, a timer) so that [Transport.NextDeadline]
// stays current.
//
// An error is fatal for the session: the sequence numbers or the key's
// volume are exhausted, or a diff is too large to fragment.
func (t *Transport[L, R]) Tick(now time.Time) ([][]byte, error) {
	t.link.maybeDetach(now)
	if !t.link.hasRemote {
		t.sender.calculateTimers(now)
		return nil, nil
	}
	in, ok := t.sender.Tick(now)
	if !ok {
		return nil, nil
	}
	return t.send(now, &in)
}

// send compresses, fragments and seals one instruction.
func (t *Transport[L, R]) send(now time.Time, in *Instruction) ([][]byte, error) {
	t.chaff = t.rand.appendChaff(t.chaff[:0])
	in.Chaff, in.GoshCaps = t.chaff, t.cfg.LocalCaps
	in.GoshEpoch, in.GoshNotice, in.GoshExit = t.epoch, t.notice, t.exit
	in.GoshSession = nil
	if !t.sessionHeld {
		in.GoshSession = t.session
	}
	if !t.cfg.Server {
		in.GoshResumeFrom = t.resumeFrom
	}
	t.encoded, _ = in.AppendBinary(t.encoded[:0])
	t.compressed = t.comp.compress(t.compressed[:0], t.encoded)
	maxBody := t.link.budget - sspcrypto.Overhead - TimestampSize - FragmentHeaderSize
	var err error
	if t.frags, err = t.frag.Split(t.frags[:0], in, t.compressed, maxBody); err != nil {
		return nil, err
	}
	t.arena, t.ends = t.arena[:0], t.ends[:0]
	for i := range t.frags {
		t.fragBuf, _ = t.frags[i].AppendBinary(t.fragBuf[:0])
		if t.arena, err = t.link.seal(t.arena, t.fragBuf, now); err != nil {
			return nil, fmt.Errorf("ssp: %w", err)
		}
		t.ends = append(t.ends, len(t.arena))
	}
	if len(t.frags) == 1 && (t.sender.sentUrgent || t.sender.sentIdle && t.link.loss >= redundantLoss) {
		// A second copy: the same fragment under the next sequence number.
		if t.arena, err = t.link.seal(t.arena, t.fragBuf, now); err != nil {
			return nil, fmt.Errorf("ssp: %w", err)
		}
		t.ends = append(t.ends, len(t.arena))
		t.stats.Redundant++
	}
	t.out = t.out[:0]
	start := 0
	for _, end := range t.ends {
		t.out = append(t.out, t.arena[start:end:end])
		t.stats.DatagramsSent++
		t.stats.BytesSent += uint64(end - start)
		start = end
	}
	t.sender.wireSent(len(t.arena))
	return t.out, nil
}

// Receive processes one datagram that arrived at now from the address
// from. It returns a [*DropError] when it discarded the datagram or its
// instruction (counted in [Transport.Stats]); such errors are never fatal
// and leave the peer's state intact. A datagram that is merely redundant
// (a duplicate, a state whose base was lost, a fragment of an incomplete
// instruction) returns nil. Receive does not retain datagram.
func (t *Transport[L, R]) Receive(now time.Time, datagram []byte, from netip.AddrPort) error {
	t.stats.DatagramsReceived++
	t.stats.BytesReceived += uint64(len(datagram))
	err := t.receive(now, datagram, from)
	t.stats.FragmentSetsAbandoned = t.asm.Abandoned
	t.stats.StatesEvicted = t.receiver.evicted
	if err != nil {
		t.stats.Dropped[err.Reason]++
		return err
	}
	return nil
}

func (t *Transport[L, R]) receive(now time.Time, datagram []byte, from netip.AddrPort) *DropError {
	t.aux = nil
	payload, newest, derr := t.link.open(now, datagram, from, &t.stats)
	if derr != nil {
		return derr
	}
	if len(payload) > 0 && payload[0] >= auxStream {
		return t.receiveAux(payload)
	}
	f, err := ParseFragment(payload)
	if err != nil {
		return &DropError{DropShort, err}
	}
	add := t.asm.Add
	if !newest {
		add = t.asm.AddReordered
	}
	compressed, complete, err := add(f, now)
	switch {
	case errors.Is(err, errStaleFragment):
		return &DropError{DropStale, err}
	case err != nil:
		return &DropError{DropFragment, err}
	case !complete:
		return nil
	}
	if t.inflated, err = t.comp.inflate(t.inflated[:0], compressed, MaxInflated); err != nil {
		return &DropError{DropDecode, err}
	}
	in, err := ParseInstruction(t.inflated)
	if err != nil {
		return &DropError{DropDecode, err}
	}
	t.stats.Instructions++
	return t.process(now, &in)
}

// process acts on one authentic, decoded instruction.
func (t *Transport[L, R]) process(now time.Time, in *Instruction) *DropError {
	if err := validateInstruction(in); err != nil {
		if errors.Is(err, ErrVersionMismatch) {
			if !t.warnedVersion {
				t.warnedVersion = true
				t.cfg.Logf.Printf("%v", err)
			}
			return &DropError{DropVersion, err}
		}
		return &DropError{DropThrowaway, err}
	}
	if derr := t.checkEpoch(now, in); derr != nil {
		return derr
	}
	t.peerCaps = in.GoshCaps
	if len(in.GoshNotice) > 0 && !t.cfg.Server {
		t.peerNotice = string(in.GoshNotice)
	}
	if in.GoshExit != 0 && !t.cfg.Server {
		t.peerExit = in.GoshExit
	}
	if len(in.GoshSession) > 0 && !t.cfg.Server {
		t.peerSession = string(in.GoshSession)
	}
	if len(t.session) > 0 && in.AckNum >= t.sessionFrom {
		t.sessionHeld = true
	}
	t.sender.ackArrived(now, in.AckNum)
	t.roundtrip = t.sender.sent[0].at
	res, err := t.receiver.Apply(now, in)
	defer t.sender.calculateTimers(now)
	switch {
	case errors.Is(err, errQueueFull):
		return &DropError{DropQueueFull, err}
	case err != nil:
		return &DropError{DropDiff, err}
	}
	switch res {
	case resultNewest:
		t.stats.Newest++
		t.sender.peerState(now, in.NewNum, len(in.Diff) > 0)
	case resultOutOfOrder:
		t.stats.OutOfOrder++
	case resultDuplicate:
		t.stats.Duplicates++
	case resultUnknownBase:
		t.stats.UnknownBase++
	}
	return nil
}

// errEpoch is the error of DropEpoch.
var errEpoch = errors.New("ssp: instruction from another epoch")

// checkEpoch drops an instruction of an epoch this side is not in. A
// server that takes epochs (SetEpochStates) moves to a newer client
// epoch: both directions restart from the canonical initial states.
func (t *Transport[L, R]) checkEpoch(now time.Time, in *Instruction) *DropError {
	switch {
	case in.GoshEpoch == t.epoch:
		return nil
	case t.cfg.Server && in.GoshEpoch > t.epoch && t.epochInit != nil:
		t.epoch, t.resumeFrom = in.GoshEpoch, in.GoshResumeFrom
		t.restart(now)
		t.cfg.Logf.Printf("ssp: the client started epoch %d", t.epoch)
		return nil
	}
	return &DropError{DropEpoch, errEpoch}
}

// restart makes the canonical initial states state 0 of both directions
// (the live local state stays as it is, and the next diff is from the
// initial state).
func (t *Transport[L, R]) restart(now time.Time) {
	local, remote := t.epochInit()
	live := t.sender.current
	s := newSender(local, now, &t.link.rtt, t.cfg.SendMinDelay, t.cfg.Pacing, t.cfg.KnownStateProbability, t.rand)
	s.current = live
	s.path, s.lastHeard = t.sender.path, t.sender.lastHeard
	s.server, s.tailProbes = t.sender.server, t.sender.tailProbes
	t.sender = s
	t.receiver = newReceiver(remote, now)
	t.roundtrip = time.Time{}
	t.sessionFrom, t.sessionHeld = 1, false // the new epoch's client may lack it
}

// SetEpochStates lets a server follow a client into a new epoch: init
// returns the canonical initial states both sides start from (the
// client's Config.Epoch above 0 says it uses them too).
func (t *Transport[L, R]) SetEpochStates(init func() (L, R)) { t.epochInit = init }

// Restart starts a server's transport from the canonical initial states
// at once, as for a new epoch (a server that made a new key for a client
// taking the session over, which starts in epoch 1).
func (t *Transport[L, R]) Restart(now time.Time) {
	if t.epochInit != nil {
		t.restart(now)
	}
}

// Epoch returns the epoch the transport is in, and ResumeFrom the
// client's GoshResumeFrom for it.
func (t *Transport[L, R]) Epoch() uint64 { return t.epoch }

// ResumeFrom returns the GoshResumeFrom of the client's current epoch.
func (t *Transport[L, R]) ResumeFrom() uint64 { return t.resumeFrom }

// SetNotice makes a server send msg in every instruction from now on, at
// once: why it no longer serves this client.
func (t *Transport[L, R]) SetNotice(now time.Time, msg string) {
	t.notice = []byte(msg)
	t.sender.probe(now)
}

// PeerNotice returns the server's notice to this client ("" if none).
func (t *Transport[L, R]) PeerNotice() string { return t.peerNotice }

// SetExit makes a server send v as GoshExit in every instruction from now
// on (0: none): how its program ended, for a client that negotiated it
// (docs/protocol.md section 12.5). It does not send by itself; a server
// sets it before it starts the shutdown that carries it.
func (t *Transport[L, R]) SetExit(v uint64) { t.exit = v }

// PeerExit returns the newest non-zero GoshExit the server sent (0: none).
func (t *Transport[L, R]) PeerExit() uint64 { return t.peerExit }

// SetSession makes a server send id as GoshSession, the session's ID on
// its host (docs/protocol.md section 12.4), in every instruction until the
// client has acknowledged a state sent with it, and again after each new
// epoch; "" sends none. Setting the same id again changes nothing.
func (t *Transport[L, R]) SetSession(id string) {
	if id == string(t.session) {
		return
	}
	t.session = []byte(id)
	t.sessionFrom = t.sender.sent[len(t.sender.sent)-1].num + 1
	t.sessionHeld = false
}

// PeerSession returns the newest GoshSession the server sent ("" if none).
func (t *Transport[L, R]) PeerSession() string { return t.peerSession }

// Freeze makes the transport stop following the live local state: it
// keeps a copy of the state as it is now, so that the caller may hand the
// live state to another transport (a server whose session was taken over
// keeps the old client's transport a while, to tell it so).
func (t *Transport[L, R]) Freeze() { t.sender.current = t.sender.current.Clone() }
