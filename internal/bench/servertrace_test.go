package bench

import "testing"

// TestServerTrace: a nil trace observes nothing; a trace no transport
// observed has no record (nil, as without a tap); an observed one has
// one, empty or not, with copies of what it was shown.
func TestServerTrace(t *testing.T) {
	var none *serverTrace
	if none.observer() != nil || none.outputs() != nil {
		t.Error("a nil trace observes or records something")
	}
	var tr serverTrace
	if tr.outputs() != nil {
		t.Error("a trace nothing observed has a record")
	}
	see := tr.observer()
	if out := tr.outputs(); out == nil || len(out) != 0 {
		t.Errorf("an observed trace with no output records %v, want an empty record", out)
	}
	b := []byte("ab")
	see(b)
	see(nil)
	b[0] = 'x'
	see([]byte("c"))
	out := tr.outputs()
	if len(out) != 2 || string(out[0].Data) != "ab" || string(out[1].Data) != "c" || out[1].At.Before(out[0].At) {
		t.Errorf("records %q, want \"ab\" then \"c\", in time order", out)
	}
}
