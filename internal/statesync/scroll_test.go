package statesync_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gosh-term/gosh/internal/statesync"
	"github.com/gosh-term/gosh/internal/vt"
)

// TestScrollDiffIdempotent: the log travels in diffs, from any older base,
// applied twice or in a chain, and a gap is malformed.
func TestScrollDiffIdempotent(t *testing.T) {
	srv := statesync.NewComplete(10, 3)
	base := srv.Clone()
	for i := range 5 {
		srv.PushScroll(vt.ScrollLine{Line: uint64(i + 10), Text: fmt.Appendf(nil, "line %d", i), Width: 10, Wrapped: i == 2})
	}
	mid := srv.Clone()
	srv.PushScroll(vt.ScrollLine{Line: 20, Text: []byte("last"), Width: 10})

	cli := statesync.NewComplete(10, 3)
	d := srv.Diff(base)
	for range 2 {
		if err := cli.Apply(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := cli.Apply(srv.Diff(mid)); err != nil {
		t.Fatal(err)
	}
	if cli.ScrollTotal() != 6 || !cli.Equal(srv) {
		t.Fatalf("client total %d", cli.ScrollTotal())
	}
	got := cli.ScrollSince(0)
	if got[2].Line != 12 || !got[2].Wrapped || got[5].Line != 20 || string(got[5].Text) != "last" {
		t.Fatalf("lines %+v", got)
	}
	cli.TrimScroll(4)
	if n := len(cli.ScrollSince(0)); n != 2 || cli.ScrollTotal() != 6 {
		t.Fatalf("after trim: %d held, total %d", n, cli.ScrollTotal())
	}
	// From a base the client does not have: a gap.
	fresh := statesync.NewComplete(10, 3)
	if err := fresh.Apply(srv.Diff(mid)); err == nil {
		t.Fatal("a diff with a gap was accepted")
	}
	// Subtract drops the acknowledged prefix on the sender.
	srv.Subtract(mid)
	if srv.ScrollBytes() != len("last") {
		t.Fatalf("in flight %d", srv.ScrollBytes())
	}
	// A new line makes states unequal and is not deferrable.
	a := srv.Clone()
	srv.PushScroll(vt.ScrollLine{Line: 21, Width: 10})
	if srv.Equal(a) || srv.Deferrable(a) {
		t.Fatal("a new line is no change")
	}
}

// TestScrollBacklog: a hostile server cannot make a client hold more than
// the limits.
func TestScrollBacklog(t *testing.T) {
	srv, cli := statesync.NewComplete(10, 3), statesync.NewComplete(10, 3)
	big := vt.ScrollLine{Text: make([]byte, statesync.MaxScrollLine+1), Width: 10}
	srv.PushScroll(big)
	if err := cli.Apply(srv.Diff(statesync.NewComplete(10, 3))); err == nil {
		t.Fatal("an oversized line was accepted")
	}
	srv = statesync.NewComplete(10, 3)
	for i := 0; i*statesync.MaxScrollLine <= statesync.MaxScrollBacklog; i++ {
		srv.PushScroll(vt.ScrollLine{Line: uint64(i), Text: make([]byte, statesync.MaxScrollLine), Width: 10})
	}
	if err := cli.Apply(srv.Diff(statesync.NewComplete(10, 3))); err == nil {
		t.Fatal("a backlog beyond the limit was accepted")
	}
	// Empty lines count too: MaxScrollBacklog / ScrollLineCost fill a
	// state, and one more is refused.
	srv = statesync.NewComplete(10, 3)
	fill := statesync.MaxScrollBacklog / statesync.ScrollLineCost
	for i := range fill {
		srv.PushScroll(vt.ScrollLine{Line: uint64(i), Width: 10})
	}
	if err := statesync.NewComplete(10, 3).Apply(srv.Diff(statesync.NewComplete(10, 3))); err != nil {
		t.Fatalf("%d empty lines: %v", fill, err)
	}
	srv.PushScroll(vt.ScrollLine{Line: uint64(fill), Width: 10})
	if err := statesync.NewComplete(10, 3).Apply(srv.Diff(statesync.NewComplete(10, 3))); !errors.Is(err, statesync.ErrScrollBacklog) {
		t.Fatalf("%d empty lines: %v, want ErrScrollBacklog", fill+1, err)
	}
}
