package bench

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// ForwardResult is one transport's port forwarding over a link (Forward).
type ForwardResult struct {
	Transport string
	// Bytes went through a forwarded connection to an echo server and
	// came back, in Elapsed.
	Bytes   int
	Elapsed time.Duration
	// RoundTrips are the times of small requests and their answers, each
	// on a new forwarded connection.
	RoundTrips []time.Duration
	// Echoes are the keystroke echo times of a typist during the
	// transfer (ForwardTyping), in order.
	Echoes []time.Duration
}

// Echo returns the p-quantile of the echo times (0 without any).
func (r ForwardResult) Echo(p float64) time.Duration {
	if len(r.Echoes) == 0 {
		return 0
	}
	s := slices.Clone(r.Echoes)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*p)]
}

// MBps is the throughput each way, in megabytes (10^6) per second.
func (r ForwardResult) MBps() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Bytes) / r.Elapsed.Seconds() / 1e6
}

// RoundTrip is the median round trip.
func (r ForwardResult) RoundTrip() time.Duration {
	if len(r.RoundTrips) == 0 {
		return 0
	}
	s := slices.Clone(r.RoundTrips)
	slices.Sort(s)
	return s[len(s)/2]
}

// WriteForward writes Forward's results as a table.
func WriteForward(w io.Writer, link string, results []ForwardResult) {
	if len(results) == 0 {
		return
	}
	fmt.Fprintf(w, "port forwarding over %s: %d KiB there and back; a %d-byte request on a new connection, median of %d\n",
		link, results[0].Bytes>>10, 40, forwardRounds)
	fmt.Fprintf(w, "%-10s %12s %10s %14s\n", "transport", "MB/s each", "time", "round trip ms")
	for _, r := range results {
		fmt.Fprintf(w, "%-10s %12.3f %10s %14.1f\n", r.Transport, r.MBps(), r.Elapsed.Round(time.Millisecond),
			float64(r.RoundTrip().Microseconds())/1000)
	}
	fmt.Fprintln(w, "  ssh -L: a direct-tcpip channel per connection over TCP (gVisor netstack); gosh -L: a gosh channel in the session's stream (round trips: gosh's agent channel, as ssh-add opens it)")
}

// WriteForwardTyping writes ForwardTyping's results as a table.
func WriteForwardTyping(w io.Writer, link string, results []ForwardResult) {
	if len(results) == 0 {
		return
	}
	fmt.Fprintf(w, "keystroke echo during a transfer over %s: %d KiB there and back through a forward while a typist types (prediction off)\n",
		link, results[0].Bytes>>10)
	fmt.Fprintf(w, "%-10s %12s %10s %6s %11s %11s %11s\n", "transport", "MB/s each", "time", "keys", "echo p50 ms", "echo p95 ms", "echo max ms")
	for _, r := range results {
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		fmt.Fprintf(w, "%-10s %12.3f %10s %6d %11.1f %11.1f %11.1f\n", r.Transport, r.MBps(), r.Elapsed.Round(time.Millisecond),
			len(r.Echoes), ms(r.Echo(0.5)), ms(r.Echo(0.95)), ms(r.Echo(1)))
	}
	fmt.Fprintln(w, "  ssh -L: the forward in the same SSH connection as the typist's session; gosh -L: in the session's stream beside the screen")
}
