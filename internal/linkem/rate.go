package linkem

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrRate is wrapped by every error of [ParseRate].
var ErrRate = errors.New("linkem: bad rate")

// rateUnits are the suffixes ParseRate knows, longest first so that
// "kbit" is not read as "bit" after a number "…k".
var rateUnits = []struct {
	suffix string
	scale  float64
}{
	{"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9},
	{"kbps", 1e3}, {"mbps", 1e6}, {"gbps", 1e9},
	{"bit", 1}, {"bps", 1},
	{"k", 1e3}, {"m", 1e6}, {"g", 1e9},
}

// ParseRate parses a bit rate such as "1mbit", "25Mbps", "500kbit",
// "1.5m" or "64000", returning bits per second. Units are case-blind:
// bit or bps, optionally after a decimal prefix k, m or g (powers of
// 1000), or the prefix alone; a bare number is in bits per second. Unlike
// tc, "mbps" means megabits, not megabytes. "0" is a valid rate
// (unlimited, in a [Config]).
func ParseRate(s string) (float64, error) {
	num := strings.ToLower(strings.TrimSpace(s))
	scale := 1.0
	for _, u := range rateUnits {
		if strings.HasSuffix(num, u.suffix) {
			num, scale = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	v *= scale
	if num == "" || strings.Trim(num, "0123456789.e+-") != "" || err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w %q: want a non-negative number and a unit such as 500kbit or 25mbps", ErrRate, cut(s, 40))
	}
	if v == 0 {
		v = 0 // not -0
	}
	return v, nil
}

// FormatRate formats bits per second the way ParseRate reads them, with
// the largest prefix that leaves at least 1: "1mbit", "1.5kbit", "800bit".
func FormatRate(bps float64) string {
	for _, u := range []struct {
		name  string
		scale float64
	}{{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}} {
		if bps >= u.scale {
			return strconv.FormatFloat(bps/u.scale, 'g', -1, 64) + u.name
		}
	}
	return strconv.FormatFloat(bps, 'g', -1, 64) + "bit"
}
