package pty

import "testing"

// TestCanonical: the terminal is in canonical mode while a program reads
// lines (sh's read), and not once it turns line editing off (stty
// -icanon, as a line editor does), as the master side sees it.
func TestCanonical(t *testing.T) {
	p, err := Start(Spec{Command: []string{"sh", "-c", "echo cooked; read a; stty -icanon -echo; echo raw; read b"},
		Env: []string{"PATH=/usr/bin:/bin"}, Dir: "/", Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readUntil(t, p, "cooked")
	if c, err := p.Canonical(); err != nil || !c {
		t.Errorf("reading a line: Canonical = %v, %v; want true", c, err)
	}
	p.Write([]byte("x\n"))
	readUntil(t, p, "raw")
	if c, err := p.Canonical(); err != nil || c {
		t.Errorf("after stty -icanon: Canonical = %v, %v; want false", c, err)
	}
}
