package relay

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// procLine formats one socket as Linux writes it in /proc/net/udp{,6}.
func procLine(i int, s udpSocket) string {
	a := s.Local.Addr()
	var raw []byte
	if a.Is4() {
		b := a.As4()
		raw = b[:]
	} else {
		b := a.As16()
		raw = b[:]
	}
	var hexAddr strings.Builder
	for j := 0; j < len(raw); j += 4 {
		fmt.Fprintf(&hexAddr, "%08X", binary.NativeEndian.Uint32(raw[j:]))
	}
	zero := strings.Repeat("0", len(raw)*2)
	return fmt.Sprintf("%5d: %s:%04X %s:0000 07 00000000:00000000 00:00000000 00000000 %5d        0 %d 2 0000000000000000 0",
		i, hexAddr.String(), s.Local.Port(), zero, s.UID, 1000+i)
}

const procHeader = "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"

func TestParseProcNetUDP(t *testing.T) {
	want := []udpSocket{
		{netip.MustParseAddrPort("127.0.0.1:60001"), 1000},
		{netip.MustParseAddrPort("0.0.0.0:53"), 0},
		{netip.MustParseAddrPort("10.1.2.3:161"), 104},
		{netip.MustParseAddrPort("[::1]:60002"), 1000},
		{netip.MustParseAddrPort("[fe80::fc:ff:fe00:1]:11211"), 110},
		{netip.MustParseAddrPort("[::]:60003"), 1000},
	}
	table := procHeader
	for i, s := range want {
		table += procLine(i, s) + "\n"
	}
	got, err := parseProcNetUDP([]byte(table))
	if err != nil || len(got) != len(want) {
		t.Fatalf("parseProcNetUDP = %v, %v; want %v", got, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("socket %d = %v, want %v", i, got[i], want[i])
		}
	}
	// Linux on little-endian hardware writes 127.0.0.1:60001 so.
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
		if got, err := parseProcAddr("0100007F:EA61"); err != nil || got != netip.MustParseAddrPort("127.0.0.1:60001") {
			t.Errorf("parseProcAddr(0100007F:EA61) = %v, %v", got, err)
		}
	}
	for _, bad := range []string{
		procHeader + "  0: 0100007F:EA61 00000000:0000 07\n",
		procHeader + "  0: 0100007F:EA6 00000000:0000 07 00000000:00000000 00:00000000 00000000 0 0 1 2 0 0\n",
		procHeader + "  0: 0100007G:EA61 00000000:0000 07 00000000:00000000 00:00000000 00000000 0 0 1 2 0 0\n",
		procHeader + "  0: 0100007F:EA61 00000000:0000 07 00000000:00000000 00:00000000 00000000 -1 0 1 2 0 0\n",
		procHeader + "  0: 0100007F EA61 00000000:0000 07 00000000:00000000 00:00000000 00000000 0 0 1 2 0 0\n",
	} {
		if got, err := parseProcNetUDP([]byte(bad)); err == nil {
			t.Errorf("parseProcNetUDP(%q) = %v, want an error", bad, got)
		}
	}
	if got, err := parseProcNetUDP([]byte(procHeader)); err != nil || len(got) != 0 {
		t.Errorf("an empty table: %v, %v", got, err)
	}
}

func TestOwners(t *testing.T) {
	socks := []udpSocket{
		{netip.MustParseAddrPort("127.0.0.1:60001"), 1000},
		{netip.MustParseAddrPort("0.0.0.0:60002"), 1000},
		{netip.MustParseAddrPort("[::]:60003"), 1000},
		{netip.MustParseAddrPort("0.0.0.0:53"), 0},
		{netip.MustParseAddrPort("[::]:60004"), 1000}, // and another's on 0.0.0.0:
		{netip.MustParseAddrPort("0.0.0.0:60004"), 0},
		{netip.MustParseAddrPort("[::1]:60005"), 1000},
	}
	for _, tc := range []struct {
		target       string
		mine, others bool
	}{
		{"127.0.0.1:60001", true, false},
		{"127.0.0.2:60001", false, false},
		{"10.0.0.1:60002", true, false},
		{"[::1]:60002", false, false}, // an IPv4 socket takes no IPv6
		{"127.0.0.1:60003", true, false},
		{"[fe80::1%eth0]:60003", true, false},
		{"127.0.0.1:53", false, true},
		{"127.0.0.1:60004", true, true},
		{"[::1]:60005", true, false},
		{"127.0.0.1:60005", false, false},
		{"[::ffff:127.0.0.1]:60001", true, false},
	} {
		mine, others := owners(socks, netip.MustParseAddrPort(tc.target), 1000)
		if mine != tc.mine || others != tc.others {
			t.Errorf("owners(%s) = %v, %v; want %v, %v", tc.target, mine, others, tc.mine, tc.others)
		}
	}
}

// FuzzParseProcNetUDP parses arbitrary tables: no panic, and what it
// returns, written again as Linux would, parses back the same.
func FuzzParseProcNetUDP(f *testing.F) {
	f.Add([]byte(procHeader + procLine(0, udpSocket{netip.MustParseAddrPort("127.0.0.1:60001"), 1000}) + "\n"))
	f.Add([]byte(procHeader + procLine(0, udpSocket{netip.MustParseAddrPort("[::1]:60001"), 0})))
	f.Add([]byte(procHeader))
	f.Add([]byte(""))
	f.Add([]byte("x\n  0: 0100007F:EA61 a b c d e 4294967296 0"))
	f.Fuzz(func(t *testing.T, table []byte) {
		got, err := parseProcNetUDP(table)
		if err != nil {
			return
		}
		again := procHeader
		for i, s := range got {
			if !s.Local.Addr().IsValid() || s.Local.Addr().Zone() != "" {
				t.Fatalf("socket %d: address %v", i, s.Local)
			}
			again += procLine(i, s) + "\n"
		}
		back, err := parseProcNetUDP([]byte(again))
		if err != nil || len(back) != len(got) {
			t.Fatalf("parsing it again: %v, %v", back, err)
		}
		for i := range got {
			if back[i] != got[i] {
				t.Fatalf("socket %d: %v, then %v", i, got[i], back[i])
			}
		}
	})
}
