package session

// How the client ends or pauses: the signals it is sent, the user's
// terminal hanging up, quitting, and suspending to the shell (Ctrl-Z).

import "time"

// signal acts on a process signal.
func (c *client) signal(now time.Time, s Signal) {
	switch s {
	case SignalResize:
		c.resized(now)
	case SignalContinue:
		c.resume()
	case SignalNetworkChange:
		c.tr.Probe(now)
		if c.cstream != nil {
			c.cstream.st.PathChanged(now)
		}
	case SignalQuit:
		c.logf.Printf("signal %v", s)
		c.quit(now, "Signal received, shutting down...")
	case SignalHangup:
		c.logf.Printf("signal %v", s)
		c.hangup(now, "Signal received, shutting down...")
	}
}

// hangup acts on the loss of the user's terminal: the client detaches from
// a gosh server's session, which goes on, resumable (a client that resumes
// a session knows its server is gosh's before hearing from it); with a
// stock mosh-server it ends the session as mosh-client does, saying why.
func (c *client) hangup(now time.Time, why string) {
	if c.tr.PeerCaps() != 0 || c.cfg.Epoch > 0 {
		c.logf.Printf("the terminal went away: detaching")
		c.detached = true
		return
	}
	c.quit(now, why)
}

// quit starts the shutdown handshake, showing why.
func (c *client) quit(now time.Time, why string) {
	c.notify.Set(why, true, 0, now)
	if !c.tr.ShutdownInProgress() {
		c.tr.StartShutdown(now)
	}
}

// suspend stops the client (Ctrl-^ Ctrl-Z) with the terminal restored, and
// takes it back when resumed.
func (c *client) suspend() {
	c.deinit()
	c.write([]byte("\n\x1b[37;44m[gosh is suspended.]\x1b[m\n"))
	c.term.Suspend()
	c.resume()
}

// resume re-enters the session after the process was stopped.
func (c *client) resume() {
	if err := c.term.MakeRaw(); err != nil {
		c.logf.Printf("raw mode: %v", err)
	}
	c.init()
}
