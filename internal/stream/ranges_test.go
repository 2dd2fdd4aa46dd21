package stream

import (
	"reflect"
	"testing"
)

func TestRanges(t *testing.T) {
	var r ranges
	r.add(10, 20)
	r.add(30, 40)
	r.add(20, 25) // touches the first: merged
	r.add(50, 60)
	r.add(35, 55) // bridges two
	if want := []span{{10, 25}, {30, 60}}; !reflect.DeepEqual(r.r, want) {
		t.Fatalf("after adds: %v, want %v", r.r, want)
	}
	for x, want := range map[uint64]bool{9: false, 10: true, 24: true, 25: false, 29: false, 30: true, 59: true, 60: false} {
		if r.contains(x) != want {
			t.Errorf("contains(%d) = %v", x, !want)
		}
	}
	r.remove(12, 32)
	if want := []span{{10, 12}, {32, 60}}; !reflect.DeepEqual(r.r, want) {
		t.Fatalf("after remove: %v, want %v", r.r, want)
	}
	r.dropBelow(40)
	if want := []span{{40, 60}}; !reflect.DeepEqual(r.r, want) {
		t.Fatalf("after dropBelow: %v, want %v", r.r, want)
	}
	for i := uint64(0); i < 10; i++ {
		r.add(100+2*i, 101+2*i)
	}
	r.dropOldest(3)
	if want := []span{{114, 115}, {116, 117}, {118, 119}}; !reflect.DeepEqual(r.r, want) {
		t.Fatalf("after dropOldest: %v, want %v", r.r, want)
	}
}
