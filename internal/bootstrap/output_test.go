package bootstrap

import "testing"

func TestStartOutput(t *testing.T) {
	// What a tty-backed mosh-server prints through ssh -tt, then noise.
	lines := []string{"\r", "\r", "MOSH SSH_CONNECTION 10.0.0.1 5555 10.0.0.2 22\r", "hello from .bashrc\r",
		"MOSH CONNECT 60004 4NeCCgvZFe2RnPgrcU1PQw\r", "after connect", "[mosh-server detached, pid = 77]\r"}
	var o startOutput
	var forUser []string
	for _, l := range lines {
		if o.stdoutLine(l) {
			forUser = append(forUser, l)
		}
	}
	if !o.connected || o.port != 60004 || o.serverIP != "10.0.0.2" || o.detached.PID != 77 || o.detached.Session != "" {
		t.Errorf("got connected=%v port=%d serverIP=%q detached=%+v", o.connected, o.port, o.serverIP, o.detached)
	}
	if len(forUser) != 1 || forUser[0] != "hello from .bashrc\r" {
		t.Errorf("lines for the user = %q, want only the .bashrc line", forUser)
	}
	// A gosh server's notice names the session as well.
	if o.stdoutLine("[gosh server detached, pid = 78, session = 78fedffa]\r") || o.detached.PID != 78 || o.detached.Session != "78fedffa" {
		t.Errorf("gosh's detach notice: detached=%+v", o.detached)
	}
}
