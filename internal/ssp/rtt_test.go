package ssp

import (
	"testing"
	"time"
)

func TestRTT(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name                            string
		samples                         []time.Duration
		wantSRTT, wantRTO, wantInterval time.Duration
	}{
		{"initial", nil, 1000 * ms, 1000 * ms, 250 * ms},
		// First sample: SRTT = R, RTTVAR = R/2, RTO = R + 2R = 300.
		{"first sample", []time.Duration{100 * ms}, 100 * ms, 300 * ms, 50 * ms},
		// RTTVAR = .75*50 + .25*|100-200| = 62.5; SRTT = 87.5+25 = 112.5;
		// RTO = ceil(112.5+250) = 363; interval = ceil(56.25) = 57.
		{"second sample", []time.Duration{100 * ms, 200 * ms}, 112500 * time.Microsecond, 363 * ms, 57 * ms},
		{"tiny RTT clamps to the minimum RTO and interval", []time.Duration{1 * ms, 1 * ms, 1 * ms}, 1 * ms, MinRTO, SendIntervalMin},
		{"huge RTT clamps to the maximum", []time.Duration{4 * time.Second}, 4 * time.Second, MaxRTO, SendIntervalMax},
		{"samples of 5 s are ignored", []time.Duration{5 * time.Second, 40 * ms}, 40 * ms, 120 * ms, SendIntervalMin},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRTT()
			for _, s := range tc.samples {
				r.Update(s)
			}
			if r.SRTT() != tc.wantSRTT || r.RTO() != tc.wantRTO || r.SendInterval() != tc.wantInterval {
				t.Errorf("SRTT, RTO, SendInterval = %v, %v, %v; want %v, %v, %v",
					r.SRTT(), r.RTO(), r.SendInterval(), tc.wantSRTT, tc.wantRTO, tc.wantInterval)
			}
		})
	}
}
