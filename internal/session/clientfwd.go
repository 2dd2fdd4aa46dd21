package session

// The client's side of forwarding: the forwards it listens for (-L, -D,
// -R) and the services it dials for the server (the agent), over the
// channels (channels.go) once the server's capabilities allow them.

import (
	"io"
	"strconv"
	"strings"
	"time"
)

// channelStream returns the channels' stream if the server takes it,
// starting it the first time.
func (c *client) channelStream() *chanStream {
	if c.tr.PeerCaps()&capStream == 0 {
		return nil
	}
	if c.cstream == nil {
		c.cstream = newChanStream(time.Now(), c.tr.SRTT())
	}
	return c.cstream
}

// RemoteForward is a listener on the server's side (-R) whose
// connections the client forwards to a TCP destination on its own side.
type RemoteForward struct {
	// Name is how messages name it (e.g. "-R 8080:localhost:80").
	Name string
	// Listen is where the server listens, "host:port".
	Listen string
	// Dest is where the client connects, "host:port".
	Dest string
}

// Forward is a local listener whose connections the session forwards to
// a TCP destination on the server's side.
type Forward struct {
	// Name is how messages name it (e.g. "-L 8080:db:5432").
	Name string
	// Listener accepts the local connections.
	Listener Listener
	// Target returns a connection's destination, "host:port"; it may
	// read from the connection first (a SOCKS handshake for -D).
	Target func(c io.ReadWriteCloser) (string, error)
}

// startForwards serves the Forwards once the server said whether it takes
// channels.
func (c *client) startForwards(now time.Time) {
	if c.forwarding || len(c.cfg.Forwards)+len(c.cfg.RemoteForwards) == 0 || !c.connected {
		return
	}
	c.forwarding = true
	if c.tr.PeerCaps()&capChannels == 0 {
		c.notify.Set("Port forwarding needs a gosh server; not forwarding.", false, errorMessageLife, now)
		c.logf.Printf("the server takes no channels (a stock mosh-server): port forwarding is off")
		for _, f := range c.cfg.Forwards {
			f.Listener.Close()
		}
		return
	}
	c.remoteFwd = map[uint32]RemoteForward{}
	for _, rf := range c.cfg.RemoteForwards {
		c.remoteFwd[c.chans.openListen(rf.Listen, rf.Name)] = rf
	}
	for _, f := range c.cfg.Forwards {
		target := f.Target
		c.chans.listenService(f.Listener, f.Name, true, func(conn io.ReadWriteCloser) (string, error) {
			addr, err := target(conn)
			return ServiceTCP(addr), err
		})
	}
}

// takeChannels acts on the server's new channel messages.
func (c *client) takeChannels() {
	remote := c.tr.Remote()
	if remote.ChannelTotal() == c.chanPos {
		return
	}
	for _, m := range remote.ChannelsSince(c.chanPos) {
		c.chans.receive(m)
	}
	c.chanPos = remote.ChannelTotal()
	remote.TrimChannels(c.chanPos)
}

// dialService says how to reach a service the server opens a channel for:
// the agent, and only when the user forwards it, and the connections to
// the listeners of the user's -R.
func (c *client) dialService(service string) (func() (io.ReadWriteCloser, error), error) {
	if id, ok := strings.CutPrefix(service, "forwarded:"); ok && c.cfg.DialTCP != nil {
		n, err := strconv.ParseUint(id, 10, 32)
		rf, ok := c.remoteFwd[uint32(n)]
		if err != nil || !ok {
			return nil, errNotForwarded // not a listener the user asked for
		}
		return func() (io.ReadWriteCloser, error) { return c.cfg.DialTCP(rf.Dest) }, nil
	}
	if service != ServiceAgent || c.cfg.DialAgent == nil {
		return nil, errNotForwarded
	}
	return c.cfg.DialAgent, nil
}

// channelClosed tells the user on the notification bar what the server
// said about a forward: why it refused or closed a connection (it could
// not listen for a -R, its policy forbids it, the destination refused),
// or where it listens for a -R when not where asked. Several can come at
// once, in any order (the server listens for a -R in a goroutine, and
// refuses a -L in its loop): each waits for the one before to be seen.
func (c *client) channelClosed(label, why string) {
	if label != "" && why != "" {
		c.notify.Queue(label+": "+why, time.Now())
		c.logf.Printf("%s: %s", label, why)
	}
}
