package vt

// pstate is a state of the DEC VT500-series parser (Paul Williams' model,
// https://vt100.net/emu/dec_ansi_parser).
type pstate uint8

const (
	sGround pstate = iota
	sEscape
	sEscapeInter
	sCSIEntry
	sCSIParam
	sCSIInter
	sCSIIgnore
	sDCSEntry
	sDCSParam
	sDCSInter
	sDCSPass
	sDCSIgnore
	sOSC
	sString // SOS, PM and APC strings: content ignored
	numStates
)

// paction is the action taken on a transition.
type paction uint8

const (
	aNone paction = iota
	aPrint
	aExecute
	aCollect
	aParam
	aESCDispatch
	aCSIDispatch
	aPut
	aOSCPut
	aOSCEnd // BEL inside an OSC string: dispatch it
	aIgnore
)

// transition packs the action (high nibble) and next state (low nibble);
// next == numStates means "stay".
type transition uint8

func tr(a paction, s pstate) transition { return transition(a)<<4 | transition(s) }

func (t transition) action() paction { return paction(t >> 4) }
func (t transition) next() pstate    { return pstate(t & 15) }

const stay = numStates

// classes is the number of input classes: code points 0x00–0x9F; anything
// from U+00A0 up is looked up as 'A' (0x41), as in Mosh.
const classes = 0xA0

// table[state][class] is the transition for an input; built once by init.
var table [numStates][classes]transition

func init() {
	for s := range pstate(numStates) {
		buildState(s)
		anywhere(s)
	}
}

// set assigns t to table[s][lo..hi].
func set(s pstate, lo, hi int, t transition) {
	for c := lo; c <= hi; c++ {
		table[s][c] = t
	}
}

// c0 assigns t to the C0 controls other than CAN, SUB and ESC.
func c0(s pstate, t transition) {
	set(s, 0x00, 0x17, t)
	set(s, 0x19, 0x19, t)
	set(s, 0x1C, 0x1F, t)
}

// buildState fills the state-specific transitions (the "escape-dispatch
// switch" of the table; long by nature).
func buildState(s pstate) {
	exec, ign := tr(aExecute, stay), tr(aIgnore, stay)
	switch s {
	case sGround:
		c0(s, exec)
		set(s, 0x20, 0x7F, tr(aPrint, stay))
	case sEscape:
		c0(s, exec)
		set(s, 0x7F, 0x7F, ign)
		set(s, 0x20, 0x2F, tr(aCollect, sEscapeInter))
		set(s, 0x30, 0x7E, tr(aESCDispatch, sGround))
		set(s, 0x5B, 0x5B, tr(aNone, sCSIEntry))
		set(s, 0x5D, 0x5D, tr(aNone, sOSC))
		set(s, 0x50, 0x50, tr(aNone, sDCSEntry))
		set(s, 0x58, 0x58, tr(aNone, sString))
		set(s, 0x5E, 0x5F, tr(aNone, sString))
	case sEscapeInter:
		c0(s, exec)
		set(s, 0x20, 0x2F, tr(aCollect, stay))
		set(s, 0x7F, 0x7F, ign)
		set(s, 0x30, 0x7E, tr(aESCDispatch, sGround))
	case sCSIEntry, sCSIParam, sCSIInter:
		csiState(s)
	case sCSIIgnore:
		c0(s, exec)
		set(s, 0x20, 0x3F, ign)
		set(s, 0x7F, 0x7F, ign)
		set(s, 0x40, 0x7E, tr(aNone, sGround))
	case sDCSEntry, sDCSParam, sDCSInter:
		dcsState(s)
	case sDCSPass:
		c0(s, tr(aPut, stay))
		set(s, 0x20, 0x7E, tr(aPut, stay))
		set(s, 0x7F, 0x7F, ign)
	case sDCSIgnore, sString:
		c0(s, ign)
		set(s, 0x20, 0x7F, ign)
	case sOSC:
		c0(s, ign)
		set(s, 0x07, 0x07, tr(aOSCEnd, sGround))
		set(s, 0x20, 0x7F, tr(aOSCPut, stay))
	}
}

// csiState fills the CSI entry/param/intermediate states. Unlike the
// original model, ':' is a parameter separator (colon sub-parameters).
func csiState(s pstate) {
	c0(s, tr(aExecute, stay))
	set(s, 0x7F, 0x7F, tr(aIgnore, stay))
	set(s, 0x40, 0x7E, tr(aCSIDispatch, sGround))
	switch s {
	case sCSIEntry:
		set(s, 0x20, 0x2F, tr(aCollect, sCSIInter))
		set(s, 0x30, 0x3B, tr(aParam, sCSIParam))
		set(s, 0x3C, 0x3F, tr(aCollect, sCSIParam))
	case sCSIParam:
		set(s, 0x20, 0x2F, tr(aCollect, sCSIInter))
		set(s, 0x30, 0x3B, tr(aParam, stay))
		set(s, 0x3C, 0x3F, tr(aNone, sCSIIgnore))
	case sCSIInter:
		set(s, 0x20, 0x2F, tr(aCollect, stay))
		set(s, 0x30, 0x3F, tr(aNone, sCSIIgnore))
	}
}

// dcsState fills the DCS entry/param/intermediate states.
func dcsState(s pstate) {
	c0(s, tr(aIgnore, stay))
	set(s, 0x7F, 0x7F, tr(aIgnore, stay))
	set(s, 0x40, 0x7E, tr(aNone, sDCSPass))
	switch s {
	case sDCSEntry:
		set(s, 0x20, 0x2F, tr(aCollect, sDCSInter))
		set(s, 0x30, 0x3B, tr(aParam, sDCSParam))
		set(s, 0x3C, 0x3F, tr(aCollect, sDCSParam))
	case sDCSParam:
		set(s, 0x20, 0x2F, tr(aCollect, sDCSInter))
		set(s, 0x30, 0x3B, tr(aParam, stay))
		set(s, 0x3C, 0x3F, tr(aNone, sDCSIgnore))
	case sDCSInter:
		set(s, 0x20, 0x2F, tr(aCollect, stay))
		set(s, 0x30, 0x3F, tr(aNone, sDCSIgnore))
	}
}

// anywhere adds the transitions that apply in every state.
func anywhere(s pstate) {
	toGround := tr(aExecute, sGround)
	set(s, 0x18, 0x18, toGround)
	set(s, 0x1A, 0x1A, toGround)
	set(s, 0x80, 0x8F, toGround)
	set(s, 0x91, 0x97, toGround)
	set(s, 0x99, 0x9A, toGround)
	set(s, 0x9C, 0x9C, tr(aNone, sGround))
	set(s, 0x1B, 0x1B, tr(aNone, sEscape))
	set(s, 0x98, 0x98, tr(aNone, sString))
	set(s, 0x9E, 0x9F, tr(aNone, sString))
	set(s, 0x90, 0x90, tr(aNone, sDCSEntry))
	set(s, 0x9D, 0x9D, tr(aNone, sOSC))
	set(s, 0x9B, 0x9B, tr(aNone, sCSIEntry))
}
