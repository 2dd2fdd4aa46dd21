package session

// capSession is bit 35 of gosh_caps (docs/protocol.md section 12.4): a
// client sets it to say it takes the session's ID, a server to say it
// sends it. The server sends its ServerConfig.SessionID (GoshSession)
// only to a client that set it, until the client has acknowledged a state
// sent with it: a client started with gosh connect --direct, which never
// sees the detach notice that names the session, learns its ID this way.
const capSession = 1 << 35

// sessionIDLen is the length of a session ID: lowercase hex digits.
const sessionIDLen = 8

// validSessionID reports whether id is a session ID as a gosh server
// makes them (the name of its control socket): 8 lowercase hex digits.
// A client takes no other: the ID names files on its machine.
func validSessionID(id string) bool {
	if len(id) != sessionIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// takeSessionID tells the client's SessionID function the ID the server
// sent, once per ID; an ID that is not one is logged and ignored.
func (c *client) takeSessionID() {
	id := c.tr.PeerSession()
	if id == c.sessionID {
		return
	}
	c.sessionID = id
	switch {
	case !validSessionID(id):
		c.logf.Printf("ignored a malformed session ID from the server: %.40q", id)
	case c.cfg.SessionID != nil:
		c.cfg.SessionID(id)
	}
}
