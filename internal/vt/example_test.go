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

func ExampleComplete_Diff() {
	server := vt.NewComplete(80, 24)
	client := server.Clone()
	sent := server.Clone()
	server.Feed([]byte("$ "), nil)
	server.SetEchoAck(1)
	diff := server.Diff(sent) // a HostMessage: echo ack, then host bytes
	if err := client.Apply(diff); err != nil {
		panic(err)
	}
	fmt.Println(client.Equal(server), client.Framebuffer().Row(0).Text())
	// Output:
	// true $
}

func ExampleUserStream_Diff() {
	s := vt.NewUserStream()
	s.PushResize(80, 24)
	s.PushKeys([]byte("ls\r"))
	fmt.Printf("% x\n", s.Diff(vt.NewUserStream()))
	// Output:
	// 0a 06 1a 04 28 50 30 18 0a 07 12 05 22 03 6c 73 0d
}
