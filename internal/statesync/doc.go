// Package statesync holds the two states the SSP transport synchronises
// (spec section 8) and the diffs between two versions of each, compatible
// with Mosh 1.4, whose statesync layer they mirror.
//
//   - [UserStream] is the client→server state: the log of the user's
//     input (keystrokes and resizes) since the session began. Its diff is
//     Mosh's ClientBuffers.UserMessage.
//   - [Complete] is the server→client state: a terminal emulator (package
//     vt) and the echo ack. Its diff is Mosh's HostBuffers.HostMessage,
//     whose host bytes come from vt's display differ with the wire profile.
//
// Both implement what package ssp asks of a state (ssp.State: Clone,
// Equal, Diff, Apply, Footprint and Subtract), Apply refusing with
// [ErrMalformed] a diff that is not a well-formed message. The protobuf
// layout of both messages is written out in wire.go.
//
// Between two gosh ends each state also carries append-only logs that
// stock Mosh never sees (unknown Instruction extensions, spec section 12):
// the messages of forwarded channels ([ChannelMsg], section 12.2) in both
// directions, and from the server the lines that scrolled off its screen
// ([vt.ScrollLine], section 12.3). A log entry stays in its sender's state
// until the peer acknowledges a state holding it, so SSP makes the logs
// reliable and ordered; a receiver bounds what it holds of each
// ([MaxChannelBacklog], [MaxScrollBacklog]).
//
// See gosh's spec, sections 6.2, 6.3, 8 and 12, and K. Winstein and
// H. Balakrishnan, "Mosh: An Interactive Remote Shell for Mobile Clients",
// USENIX ATC 2012: SSP and its two objects.
//
// The package is a pure core: it reads no clock, starts no goroutines and
// does no I/O.
package statesync
