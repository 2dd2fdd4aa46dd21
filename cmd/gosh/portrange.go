package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parsePortRange parses mosh's PORT or LO:HI port specification. PORT 0
// means a kernel-chosen port; a range needs 1 ≤ LO ≤ HI ≤ 65535.
func parsePortRange(s string) (lo, hi uint16, err error) {
	los, his, isRange := strings.Cut(s, ":")
	l, err := parsePort(los)
	if err != nil {
		return 0, 0, err
	}
	if !isRange {
		return l, l, nil
	}
	h, err := parsePort(his)
	if err != nil {
		return 0, 0, err
	}
	if l == 0 {
		return 0, 0, fmt.Errorf("bad UDP port range %q: low port 0 cannot start a range", s)
	}
	if l > h {
		return 0, 0, fmt.Errorf("bad UDP port range %q: low port %d greater than high port %d", s, l, h)
	}
	return l, h, nil
}

func parsePort(s string) (uint16, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("bad UDP port %q", s)
	}
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("UDP port %s outside valid range [0..65535]", s)
	}
	return uint16(n), nil
}
