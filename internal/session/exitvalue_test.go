package session

import (
	"errors"
	"testing"
)

// TestExitValue: the GoshExit values of protocol 12.5 in both directions;
// what the client does not know (another kind, signal 0, a value beyond
// the second byte) counts as no status.
func TestExitValue(t *testing.T) {
	for _, tc := range []struct {
		code, signal int
		wire         uint64
	}{{0, 0, 0x100}, {3, 0, 0x103}, {255, 0, 0x1ff}, {0, 9, 0x209}, {0, 255, 0x2ff},
		{256, 0, 0}, {-1, 0, 0}, {0, 256, 0}, {0, -1, 0}} {
		if got := encodeExit(tc.code, tc.signal); got != tc.wire {
			t.Errorf("encodeExit(%d, %d) = %#x, want %#x", tc.code, tc.signal, got, tc.wire)
		}
	}
	for _, tc := range []struct {
		wire      uint64
		code, sig int // both 0: nil
		exitCode  int
	}{{0, 0, 0, 0}, {0x100, 0, 0, 0}, {0x103, 3, 0, 3}, {0x209, 0, 9, 137}, {0x2ff, 0, 255, 255},
		{0x200, 0, 0, 0}, {0x303, 0, 0, 0}, {0x10103, 0, 0, 0}, {0x3, 0, 0, 0}} {
		err := decodeExit(tc.wire)
		var ee *ExitError
		switch {
		case tc.code == 0 && tc.sig == 0:
			if err != nil {
				t.Errorf("decodeExit(%#x) = %v, want nil", tc.wire, err)
			}
		case !errors.As(err, &ee) || ee.Code != tc.code || ee.Signal != tc.sig || ee.ExitCode() != tc.exitCode:
			t.Errorf("decodeExit(%#x) = %v, want status %d signal %d (exit %d)", tc.wire, err, tc.code, tc.sig, tc.exitCode)
		}
	}
}
