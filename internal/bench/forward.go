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
	fmt.Fprintln(w, "  ssh -L: a direct-tcpip channel per connection over TCP (gVisor netstack); gosh -L: a gosh channel (round trips: gosh's agent channel, as ssh-add opens it)")
}
