// Package pb holds the protocol buffer schemas of the Mosh wire protocol
// (protocol version 2) and the Go code generated from them.
//
// The .proto files in this directory are wire-identical to Mosh 1.4's: the
// same proto2 packages (TransportBuffers, ClientBuffers, HostBuffers),
// message names, field numbers and extensions. The generated packages
// [transportpb], [userpb] and [hostpb] are produced by `make proto`
// (protoc with protoc-gen-go) and committed.
//
// The hot paths in internal/ssp and internal/vt encode and decode these
// messages by hand with protowire, without reflection or allocation; the
// generated code is the schema oracle their tests compare against.
package pb
