// Package linkem emulates network links inside one unprivileged process,
// for `gosh bench typing`: it delays, loses, queues and rate-limits
// packets the way a chosen network would, so that gosh, SSH and stock
// Mosh can be measured over the same links.
//
// # Layers
//
//	UDPRelay    relay.go     loopback UDP between a client and a server, one Pipe each way
//	 └─ Pipe    pipe.go      one direction in real time: one goroutine, one timer
//	     └─ Model  model.go  pure core: Offer(now, size) → delivery time or loss
//	         ├─ bottleneck   bottleneck.go  rate serialiser or opportunity queue
//	         ├─ cellular     cellular.go    Sprout's stochastic link
//	         └─ Trace        trace.go       Mahimahi/Cellsim trace replay
//
// Only pipe.go and relay.go read the clock or start goroutines. A [Model]
// takes now as an argument and decides each packet's fate the moment it
// is offered, which is possible because nothing that happens later (a
// later packet, say) changes an earlier packet's fate.
//
// # A packet's way through a link
//
// Each direction is a [Config], applied in this order:
//
//	offer ─▶ outage? ─▶ burst loss? ─▶ random loss? ─▶ bottleneck queue ─▶ delay + jitter ─▶ deliver
//	           │            │               │              │ full: drop tail
//	           ▼            ▼               ▼              ▼
//	       DroppedOutage DroppedBurst   DroppedLoss    DroppedQueue
//
// In detail:
//
//   - Outages ([Config.Outages], [Model.SetOutage]) lose every packet
//     offered while they last.
//   - The Gilbert–Elliott chain ([Config.Burst]) moves once per packet
//     that reaches it, then independent loss ([Config.Loss]) applies to
//     the survivors: together they lose 1 − (1−Loss)(1−burst loss).
//   - The bottleneck is a constant bit rate ([Config.Rate]), a cellular
//     link ([Config.Cellular]) or a trace ([Config.Trace]), behind a
//     drop-tail queue of [Config.Queue] packets; without one a packet
//     passes at once. Packets leave it in order; the time from arrival to
//     departure is the queueing delay ([Stats.MaxQueueDelay]).
//   - Propagation adds [Config.Delay] plus a uniform [0, Jitter) extra.
//     Unless [Config.Reorder] is set a packet is then held until every
//     earlier packet has arrived, so jitter never reorders.
//
// Every random choice comes from math/rand/v2's PCG, seeded by the seed
// given to [NewModel] (one stream per feature), so a seed and a sequence
// of offers always give the same decisions.
//
// # Delivery opportunities
//
// Trace and cellular links deliver in opportunities of [OpportunityBytes]
// each, as Mahimahi's link shell does: an opportunity carries up to 1500
// bytes from the head of the queue (small packets share one, a large one
// spans several), a packet leaves with the opportunity that carries its
// last byte, and an opportunity that finds the queue empty is wasted.
// A trace file lists opportunities as millisecond timestamps, one per line,
// and loops after its last one ([ParseTrace]); three synthetic traces are
// built in ([TraceNames], [LookupTrace]).
//
// # Profiles
//
// [Profiles] are the links of the Mosh paper's evaluation (EV-DO, 50%
// round-trip loss), of the Stanford CS244 reproduction of it (3G and
// Wi-Fi), Sprout's cellular model and periodic outages; [Custom] builds
// one from command-line settings.
//
// # References
//
//   - K. Winstein and H. Balakrishnan, "Mosh: An Interactive Remote Shell
//     for Mobile Clients", USENIX ATC 2012: the EV-DO and loss links.
//   - K. Winstein, A. Sivaraman and H. Balakrishnan, "Stochastic Forecasts
//     Achieve High Throughput and Low Delay over Cellular Networks", NSDI
//     2013, section 3.1: the cellular model ([Cellular]).
//   - R. Netravali et al., "Mahimahi: Accurate Record-and-Replay for
//     HTTP", USENIX ATC 2015: the trace format and delivery opportunities.
//   - E. N. Gilbert, "Capacity of a Burst-Noise Channel", Bell System
//     Technical Journal, 1960; E. O. Elliott, "Estimates of Error Rates
//     for Codes on Burst-Noise Channels", 1963: [GilbertElliott].
package linkem
