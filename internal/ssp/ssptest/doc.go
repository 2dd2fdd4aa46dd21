// Package ssptest provides test doubles for package ssp: state objects
// that satisfy the ssp.State constraint and a lossy, reordering in-memory
// network.
//
//   - [Log] is an append-only byte log whose diffs name the exact state
//     they were computed from, so a test can prove that no diff is ever
//     applied to another state.
//   - [UserInput] and [Host] are minimal versions of Mosh's two state
//     objects, speaking the real ClientBuffers.UserMessage and
//     HostBuffers.HostMessage encodings, for talking to stock Mosh. The
//     real ones live in internal/vt.
//   - [Network] is an in-memory datagram network of net.PacketConns with
//     loss, duplication, delay, reordering and address changes.
//
// ssptest does not import ssp, so ssp's internal tests can use it too.
package ssptest
