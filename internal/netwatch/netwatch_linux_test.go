package netwatch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestMain runs the network namespace half of TestWatchLinux when asked.
func TestMain(m *testing.M) {
	if os.Getenv("GOSH_NETWATCH_CHILD") == "1" {
		os.Exit(watchInNamespace())
	}
	os.Exit(m.Run())
}

// TestWatchLinux: in a network namespace of its own (made with a user
// namespace, so without privileges), bringing the loopback interface up
// is reported within a second.
func TestWatchLinux(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GOSH_NETWATCH_CHILD=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Skipf("cannot make a user and network namespace here (%v): nothing to watch without changing the machine's own network", err)
	}
	if err != nil {
		t.Fatalf("in a new network namespace: %v\n%s", err, out)
	}
}

// watchInNamespace watches, brings lo up, and expects the change.
func watchInNamespace() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := Watch(ctx, func(f string, a ...any) { println("log:", f) })
	select {
	case <-c:
		println("a change before any was made")
		return 1
	case <-time.After(200 * time.Millisecond):
	}
	if err := setLoopbackUp(); err != nil {
		println("bringing lo up:", err.Error())
		return 1
	}
	select {
	case <-c:
		return 0
	case <-time.After(time.Second):
		println("no change reported within 1 s of bringing lo up")
		return 1
	}
}

// setLoopbackUp sets IFF_UP on lo.
func setLoopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
