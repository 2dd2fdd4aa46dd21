package statesync_test

import (
	"fmt"

	"github.com/gosh-term/gosh/internal/statesync"
)

func ExampleComplete_Diff() {
	server := statesync.NewComplete(80, 24)
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
	s := statesync.NewUserStream()
	s.PushResize(80, 24)
	s.PushKeys([]byte("ls\r"))
	fmt.Printf("% x\n", s.Diff(statesync.NewUserStream()))
	// Output:
	// 0a 06 1a 04 28 50 30 18 0a 07 12 05 22 03 6c 73 0d
}
