package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gosh-term/gosh/internal/bootstrap"
	gcrypto "github.com/gosh-term/gosh/internal/crypto"
	"github.com/gosh-term/gosh/internal/session"
	"github.com/gosh-term/gosh/internal/terminfo"
)

// runConnect is "gosh connect": find the server (bootstrap over SSH, start
// one locally, or take it from the command line), then run the session.
func runConnect(ctx context.Context, o *ConnectOptions) error {
	logf := func(string, ...any) {}
	if o.Verbose > 0 {
		logf = func(format string, args ...any) { fmt.Fprintf(o.Stderr, "gosh: "+format+"\r\n", args...) }
	}
	stdin, ok1 := o.Stdin.(*os.File)
	stdout, ok2 := o.Stdout.(*os.File)
	if !ok1 || !ok2 {
		return errors.New("connect: standard input and output must be the terminal")
	}

	var server netip.AddrPort
	var key gcrypto.Key
	var err error
	switch {
	case o.Direct:
		server, key, err = directTarget(ctx, o)
	case o.Local:
		server, key, err = startLocal(ctx, o)
	default:
		server, key, err = bootstrapRemote(ctx, o, logf)
	}
	if err != nil {
		return err
	}

	pred, err := newPredictor(o)
	if err != nil {
		return err
	}
	escape, escapeSet := os.LookupEnv("MOSH_ESCAPE_KEY")
	_, noPrefix := os.LookupEnv("MOSH_TITLE_NOPREFIX")
	return session.RunClient(ctx, session.ClientConfig{
		Server:        server,
		Key:           key,
		Predict:       pred,
		NoInit:        o.NoInit,
		EscapeKey:     escape,
		EscapeKeySet:  escapeSet,
		TitleNoPrefix: noPrefix,
		Term:          os.Getenv("TERM"),
		Stdin:         stdin,
		Stdout:        stdout,
		Logf:          logf,
	})
}

// directTarget is --direct HOST PORT with the key in MOSH_KEY, which is
// removed from the environment at once (as mosh-client does).
func directTarget(ctx context.Context, o *ConnectOptions) (netip.AddrPort, gcrypto.Key, error) {
	text, ok := os.LookupEnv("MOSH_KEY")
	os.Unsetenv("MOSH_KEY")
	if !ok {
		return netip.AddrPort{}, gcrypto.Key{}, errors.New("connect: MOSH_KEY environment variable not found")
	}
	key, err := gcrypto.ParseKey(strings.TrimSpace(text))
	if err != nil {
		return netip.AddrPort{}, gcrypto.Key{}, fmt.Errorf("connect: bad MOSH_KEY: %w", err)
	}
	addr, err := resolve(ctx, o.DirectHost, o.Family)
	if err != nil {
		return netip.AddrPort{}, gcrypto.Key{}, err
	}
	return netip.AddrPortFrom(addr, uint16(o.DirectPort)), key, nil
}

// resolve turns a host into one address of the wanted family.
func resolve(ctx context.Context, host, family string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap(), nil
	}
	network := "ip"
	switch family {
	case "inet":
		network = "ip4"
	case "inet6":
		network = "ip6"
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, network, host)
	if err != nil || len(addrs) == 0 {
		return netip.Addr{}, fmt.Errorf("connect: could not resolve %s", host)
	}
	return addrs[0].Unmap(), nil
}

// startLocal is --local: run "gosh server new" on this machine and read
// its CONNECT line, as mosh --local does.
func startLocal(ctx context.Context, o *ConnectOptions) (netip.AddrPort, gcrypto.Key, error) {
	exe, err := os.Executable()
	if err != nil {
		return netip.AddrPort{}, gcrypto.Key{}, fmt.Errorf("connect: finding the gosh binary: %w", err)
	}
	ip := "127.0.0.1"
	if o.Family == "inet6" {
		ip = "::1"
	}
	args := []string{"server", "new", "-i", ip, "-c", fmt.Sprint(terminalColors())}
	if o.Port != "" {
		args = append(args, "-p", o.Port)
	}
	for _, l := range bootstrap.LocaleFromEnv() {
		args = append(args, "-l", l)
	}
	for i := 0; i < o.Verbose; i++ {
		args = append(args, "-v")
	}
	if len(o.Command) > 0 {
		args = append(append(args, "--"), o.Command...)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stderr = o.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return netip.AddrPort{}, gcrypto.Key{}, err
	}
	if err := cmd.Start(); err != nil {
		return netip.AddrPort{}, gcrypto.Key{}, fmt.Errorf("connect: starting the local server: %w", err)
	}
	var port uint16
	var key gcrypto.Key
	found := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if p, k, ok := bootstrap.ParseConnectLine(sc.Text()); ok {
			port, key, found = p, k, true
		}
	}
	if err := cmd.Wait(); err != nil {
		return netip.AddrPort{}, gcrypto.Key{}, fmt.Errorf("connect: the local server failed: %w", err)
	}
	if !found {
		return netip.AddrPort{}, gcrypto.Key{}, errors.New("connect: the local server printed no MOSH CONNECT line")
	}
	return netip.AddrPortFrom(netip.MustParseAddr(ip), port), key, nil
}

// bootstrapRemote logs in over SSH and starts the server there.
func bootstrapRemote(ctx context.Context, o *ConnectOptions, logf func(string, ...any)) (netip.AddrPort, gcrypto.Key, error) {
	cfg := bootstrap.Config{
		Destination:   o.Destination,
		ServerCommand: o.Server,
		ServerArgs: bootstrap.ServerArgs{
			Colors:  terminalColors(),
			Locale:  bootstrap.LocaleFromEnv(),
			Port:    o.Port,
			Bind:    o.BindServer,
			Verbose: max(o.Verbose-1, 0),
			Command: o.Command,
		},
		SSHCommand:     o.SSH,
		Family:         o.Family,
		ConfigFile:     o.SSHConfig,
		Stderr:         o.Stderr,
		Upload:         o.Upload,
		RemoteBinary:   o.RemoteBinary,
		BinaryCache:    o.BinaryCache,
		ConnectTimeout: o.ConnectTimeout,
		Logf:           logf,
	}
	if p, err := bootstrap.NewTerminalPrompter(); err == nil {
		defer p.Close()
		cfg.Prompt = p
	}
	res, err := bootstrap.Run(ctx, cfg)
	if err != nil {
		return netip.AddrPort{}, gcrypto.Key{}, err
	}
	return netip.AddrPortFrom(res.Addr, res.Port), res.Key, nil
}

// terminalColors is the user's terminal's colour count, as mosh-client -c
// reports it from terminfo; a truecolor terminal counts as 256.
func terminalColors() int {
	if ct := os.Getenv("COLORTERM"); ct == "truecolor" || ct == "24bit" {
		return 256
	}
	name := os.Getenv("TERM")
	t, err := terminfo.Load(name)
	if err != nil {
		t = terminfo.Fallback(name)
	}
	return max(t.Colors, 0)
}
