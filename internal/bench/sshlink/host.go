package sshlink

import (
	"context"
	"fmt"
	"sync"

	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/link/channel"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
)

const tcpProtocol = tcp.ProtocolNumber

// host is one gVisor stack with one NIC, whose outbound packets a pump
// goroutine hands to link.
type host struct {
	stack *stack.Stack
	ep    *channel.Endpoint
	link  Link // set by NewNet before start

	cancel context.CancelFunc // stops the pump
	done   chan struct{}      // closed when the pump returns

	// mu guards closed. deliver holds it for reading while it injects a
	// packet (which does not block: the stack queues it for its own
	// goroutines), so close, which takes it for writing, waits out the
	// deliveries in progress before tearing the stack down.
	mu     sync.RWMutex
	closed bool
}

// newHost makes a stack at addr, with TCP configured as the package doc
// says.
func newHost(addr tcpip.Address) (*host, error) {
	s := stack.New(stack.Options{
		NetworkProtocols:   []stack.NetworkProtocolFactory{ipv4.NewProtocol},
		TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol},
	})
	h := &host{stack: s, ep: channel.New(outQueueLen, MTU, ""), done: make(chan struct{})}
	if err := h.configure(addr); err != nil {
		s.Destroy()
		return nil, err
	}
	return h, nil
}

// configure sets the TCP options, attaches the NIC and routes the subnet.
func (h *host) configure(addr tcpip.Address) error {
	sack := tcpip.TCPSACKEnabled(true)
	cc := tcpip.CongestionControlOption(congestionControl)
	delay := tcpip.TCPDelayEnabled(false) // no Nagle: TCP_NODELAY, as ssh sets
	for _, opt := range []tcpip.SettableTransportProtocolOption{&sack, &cc, &delay} {
		if err := h.stack.SetTransportProtocolOption(tcpProtocol, opt); err != nil {
			return fmt.Errorf("sshlink: setting TCP option %T: %s", opt, err)
		}
	}
	if err := h.stack.CreateNIC(nicID, h.ep); err != nil {
		return fmt.Errorf("sshlink: creating NIC: %s", err)
	}
	pa := tcpip.ProtocolAddress{
		Protocol:          ipv4.ProtocolNumber,
		AddressWithPrefix: tcpip.AddressWithPrefix{Address: addr, PrefixLen: prefixLen},
	}
	if err := h.stack.AddProtocolAddress(nicID, pa, stack.AddressProperties{}); err != nil {
		return fmt.Errorf("sshlink: adding address %s: %s", addr, err)
	}
	h.stack.SetRouteTable([]tcpip.Route{{Destination: pa.AddressWithPrefix.Subnet(), NIC: nicID}})
	return nil
}

// start runs the pump.
func (h *host) start() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go h.pump(ctx)
}

// pump hands each outbound packet to the link. It blocks in the
// endpoint's ReadContext while the stack has nothing to send, and returns
// when ctx is cancelled or the endpoint is closed (both make it read nil).
func (h *host) pump(ctx context.Context) {
	defer close(h.done)
	for {
		pkt := h.ep.ReadContext(ctx)
		if pkt == nil {
			return
		}
		buf := pkt.ToBuffer()
		b := buf.Flatten() // a copy the link may keep
		buf.Release()
		pkt.DecRef()
		h.link.Send(b)
	}
}

// deliver injects the IPv4 packet b into the stack, or drops it if the
// host is closed or b is not IPv4. It copies b.
func (h *host) deliver(b []byte) {
	if len(b) < header.IPv4MinimumSize || header.IPVersion(b) != header.IPv4Version {
		return
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.closed {
		return
	}
	pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(b)})
	h.ep.InjectInbound(ipv4.ProtocolNumber, pkt)
	pkt.DecRef()
}

// close stops deliveries and the pump, then destroys the stack, which
// aborts its endpoints and waits for its goroutines.
func (h *host) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	if h.cancel != nil {
		h.cancel()
		<-h.done
	}
	h.stack.Destroy()
	h.ep.Close()
}
