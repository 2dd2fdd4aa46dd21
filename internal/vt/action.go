package vt

// Params are the numeric parameters of a control sequence. Absent
// parameters read as 0. A parameter introduced by ':' instead of ';' is a
// sub-parameter of the one before it.
type Params struct {
	v       [MaxParams]uint32
	sub     uint32 // bit i: parameter i followed a ':'
	n       int    // parameters present
	i       int    // index being accumulated
	started bool
	over    bool // more than MaxParams: the rest is dropped
}

// Len returns the number of parameters, counting empty ones.
func (p *Params) Len() int { return p.n }

// Raw returns parameter i, or 0 if it is absent, empty or out of range.
func (p *Params) Raw(i int) int {
	if i < 0 || i >= p.n || p.v[i] > MaxParamValue {
		return 0
	}
	return int(p.v[i])
}

// Get returns parameter i, or def if it is absent or 0 (0 means "default"
// for every control function, as in Mosh and ECMA-48).
func (p *Params) Get(i, def int) int {
	if v := p.Raw(i); v != 0 {
		return v
	}
	return def
}

// IsSub reports whether parameter i followed a ':' (a sub-parameter).
func (p *Params) IsSub(i int) bool { return i > 0 && i < p.n && p.sub&(1<<uint(i)) != 0 }

// HasSub reports whether any parameter is a sub-parameter.
func (p *Params) HasSub() bool { return p.sub != 0 }

func (p *Params) reset() {
	p.v[0], p.sub, p.n, p.i, p.started, p.over = 0, 0, 0, 0, false, false
}

// digit accumulates a decimal digit into the current parameter.
func (p *Params) digit(d byte) {
	p.started = true
	if p.over {
		return
	}
	if v := p.v[p.i]; v <= MaxParamValue {
		p.v[p.i] = v*10 + uint32(d-'0')
	}
	p.n = p.i + 1
}

// next starts a new parameter after ';' or ':'.
func (p *Params) next(colon bool) {
	if !p.started {
		p.started, p.n = true, 1
	}
	if p.i+1 >= MaxParams {
		p.over = true
		return
	}
	p.i++
	p.v[p.i] = 0
	if colon {
		p.sub |= 1 << uint(p.i)
	}
	p.n = p.i + 1
}

// Sequence is a dispatched escape, control or device control sequence.
type Sequence struct {
	Params Params
	Marker byte           // private marker of a CSI/DCS: '<', '=', '>', '?' or 0
	Inter  [maxInter]byte // intermediate bytes 0x20–0x2F, in order
	NInter int            // number of intermediates
	Final  rune           // final character (a value ≥ 0x80 is never a known function)
	bad    bool           // too many intermediates or a misplaced marker
}

// key packs marker, intermediates and final into a dispatch key, or
// returns 0 for a sequence no function can match.
func (s *Sequence) key() uint32 {
	if s.bad || s.Final >= 0x80 {
		return 0
	}
	return uint32(s.Marker)<<24 | uint32(s.Inter[0])<<16 | uint32(s.Inter[1])<<8 | uint32(s.Final)
}

// seqKey builds the key of [Sequence.key] for a switch.
func seqKey(marker, inter byte, final byte) uint32 {
	return uint32(marker)<<24 | uint32(inter)<<16 | uint32(final)
}

// Handler receives the actions of a [Parser].
type Handler interface {
	// Print draws a graphic character (ground state, U+0020 and up).
	Print(r rune)
	// PrintASCII draws a run of bytes 0x20–0x7E; the slice is only valid
	// during the call.
	PrintASCII(s []byte)
	// Execute performs a C0 control (below U+0020) or C1 control
	// (U+0080–U+009F) that does not start a string or sequence.
	Execute(c rune)
	// ESCDispatch performs an escape sequence (ESC, intermediates, final).
	ESCDispatch(s *Sequence)
	// CSIDispatch performs a control sequence.
	CSIDispatch(s *Sequence)
	// OSCDispatch performs an operating system command; data is only valid
	// during the call and truncated reports that bytes beyond MaxOSC were
	// dropped.
	OSCDispatch(data []byte, truncated bool)
	// DCSHook starts a device control string; DCSPut passes its content
	// and DCSUnhook ends it.
	DCSHook(s *Sequence)
	DCSPut(r rune)
	DCSUnhook()
}
