package vt_test

import (
	"fmt"

	"github.com/gosh-term/gosh/internal/vt"
)

func ExampleEmulator_Feed() {
	e := vt.NewEmulator(20, 3)
	reply := e.Feed([]byte("hello\r\n\x1b[1;31mworld\x1b[0m\x1b[6n"), nil) // text, bold red, CPR query
	fb := e.Framebuffer()
	fmt.Printf("%q\n%q\n", fb.Row(0).Text(), fb.Row(1).Text())
	fmt.Printf("reply %q, bold=%v\n", reply, fb.Cell(0, 1).Rend.Attrs&vt.AttrBold != 0)
	// Output:
	// "hello"
	// "world"
	// reply "\x1b[2;6R", bold=true
}

func ExampleDisplay_NewFrame() {
	e := vt.NewEmulator(10, 2)
	e.Feed([]byte("abc"), nil)
	before := e.Framebuffer().Clone()
	e.Feed([]byte("d"), nil)
	d := vt.NewDisplay(vt.WireDisplayCaps(0))
	fmt.Printf("%q\n", d.NewFrame(nil, true, before, e.Framebuffer()))
	// Output:
	// "d"
}
