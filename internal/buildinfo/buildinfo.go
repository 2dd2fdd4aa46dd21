// Package buildinfo holds facts about the running gosh binary that are fixed
// at build time: its version, stamped by the linker, and the wire protocol
// it speaks.
package buildinfo

import "runtime/debug"

// Version is the gosh release this binary was built from. `make build` sets
// it with -ldflags "-X github.com/gosh-term/gosh/internal/buildinfo.Version=…";
// a plain `go build` leaves "devel", refined from the module build info when
// available.
var Version = "devel"

// MoshProtocolVersion is the Mosh wire protocol version gosh speaks
// (the protocol_version field of every transport instruction).
const MoshProtocolVersion = 2

func init() {
	if Version != "devel" {
		return
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		Version = bi.Main.Version
	}
}
