package bootstrap

// The Windows client's SSH layer: where it finds its files, the OpenSSH
// agent's named pipe, and prompts on the console. These run on Windows and
// under Wine (make wine-test). Wine has no OpenSSH for Windows, so the
// agent is served here on the pipe Windows' ssh-agent service uses, and
// the SSH server is golang.org/x/crypto/ssh's in this process; prompts are
// answered by typing into the console's input, as a user would.

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
	"golang.org/x/sys/windows"

	"github.com/gosh-term/gosh/internal/sshconfig"
	"github.com/gosh-term/gosh/internal/wincon"
)

// windowsUser sets up a Windows user's environment in temporary
// directories: %USERPROFILE% (with .ssh), %PROGRAMDATA% and %USERNAME%,
// and no SSH_AUTH_SOCK.
func windowsUser(t *testing.T) (profile, programData string) {
	t.Helper()
	profile, programData = t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(profile, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(programData, "ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("USERPROFILE", profile)
	t.Setenv("PROGRAMDATA", programData)
	t.Setenv("USERNAME", "winuser")
	t.Setenv("SSH_AUTH_SOCK", "")
	os.Unsetenv("SSH_AUTH_SOCK")
	// The package's system paths were read at start-up; point them here.
	oldDir, oldConfig, oldKnown := systemSSHConfigDir, systemSSHConfig, systemKnownHosts
	systemSSHConfigDir = filepath.Join(programData, "ssh")
	systemSSHConfig = filepath.Join(systemSSHConfigDir, "ssh_config")
	systemKnownHosts = []string{filepath.Join(systemSSHConfigDir, "ssh_known_hosts"), filepath.Join(systemSSHConfigDir, "ssh_known_hosts2")}
	t.Cleanup(func() { systemSSHConfigDir, systemSSHConfig, systemKnownHosts = oldDir, oldConfig, oldKnown })
	return profile, programData
}

func TestWindowsPaths(t *testing.T) {
	// The defaults themselves, before windowsUser points them elsewhere.
	pd := os.Getenv("PROGRAMDATA")
	if pd == "" {
		pd = `C:\ProgramData`
	}
	if want := filepath.Join(pd, "ssh", "ssh_config"); systemSSHConfig != want {
		t.Errorf("system ssh_config %q, want %q", systemSSHConfig, want)
	}
	if want := filepath.Join(pd, "ssh", "ssh_known_hosts"); systemKnownHosts[0] != want {
		t.Errorf("system known_hosts %q, want %q", systemKnownHosts[0], want)
	}

	profile, programData := windowsUser(t)
	writeFile(t, filepath.Join(profile, ".ssh", "config"), "Host web\n  Port 2201\n  Include extra.conf\n")
	writeFile(t, filepath.Join(profile, ".ssh", "extra.conf"), "Host web\n  IdentityFile ~/.ssh/web_key\n")
	writeFile(t, filepath.Join(programData, "ssh", "ssh_config"), "Host *\n  User systemwide\n  HostName web.example.org\n")
	r, err := newResolver(&Config{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(profile, ".ssh", "config"), filepath.Join(programData, "ssh", "ssh_config")}; !slices.Equal(r.Files, want) {
		t.Errorf("config files %q, want %q", r.Files, want)
	}
	if r.LocalUser != "winuser" {
		t.Errorf("local user %q, want %%USERNAME%%", r.LocalUser)
	}
	p, err := r.resolve(sshconfig.Destination{Host: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Port != 2201 || p.User != "systemwide" || p.HostName != "web.example.org" {
		t.Errorf("resolved port %d user %q hostname %q, want 2201 systemwide web.example.org", p.Port, p.User, p.HostName)
	}
	if want := filepath.Join(profile, ".ssh", "web_key"); len(p.IdentityFiles) != 1 || p.IdentityFiles[0] != want {
		t.Errorf("identity files %q, want [%q]", p.IdentityFiles, want)
	}
	if want := filepath.Join(profile, ".ssh", "known_hosts"); p.UserKnownHosts[0] != want {
		t.Errorf("known_hosts %q, want %q", p.UserKnownHosts[0], want)
	}
	if want := filepath.Join(programData, "ssh", "ssh_known_hosts"); p.GlobalKnownHosts[0] != want {
		t.Errorf("global known_hosts %q, want %q", p.GlobalKnownHosts[0], want)
	}
	if p.IdentityAgent != defaultAgent {
		t.Errorf("agent %q, want Windows' OpenSSH agent pipe %q", p.IdentityAgent, defaultAgent)
	}
	p, err = r.resolve(sshconfig.Destination{Host: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(profile, ".ssh", "id_ed25519"); !slices.Contains(p.IdentityFiles, want) {
		t.Errorf("default identity files %q lack %q", p.IdentityFiles, want)
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// testSSHServer is an SSH server on loopback that accepts the given
// public keys, the password "hunter2" and the keyboard-interactive answer
// "4242", and records which method let each connection in.
type testSSHServer struct {
	addr    string
	hostKey ssh.Signer

	mu      sync.Mutex
	methods []string
}

func newTestSSHServer(t *testing.T, keys ...ssh.PublicKey) *testSSHServer {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	hk, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	s := &testSSHServer{hostKey: hk}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			for _, want := range keys {
				if string(k.Marshal()) == string(want.Marshal()) {
					s.record("publickey " + ssh.FingerprintSHA256(k))
					return nil, nil
				}
			}
			return nil, fmt.Errorf("unknown key")
		},
		PasswordCallback: func(_ ssh.ConnMetadata, pw []byte) (*ssh.Permissions, error) {
			if string(pw) == "hunter2" {
				s.record("password")
				return nil, nil
			}
			return nil, fmt.Errorf("wrong password")
		},
		KeyboardInteractiveCallback: func(_ ssh.ConnMetadata, ask ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			ans, err := ask("", "", []string{"Code: "}, []bool{true})
			if err == nil && len(ans) == 1 && ans[0] == "4242" {
				s.record("keyboard-interactive")
				return nil, nil
			}
			return nil, fmt.Errorf("wrong code")
		},
	}
	cfg.AddHostKey(hk)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s.addr = ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
				if err != nil {
					return
				}
				defer sc.Close()
				go ssh.DiscardRequests(reqs)
				for ch := range chans {
					ch.Reject(ssh.Prohibited, "no channels here")
				}
			}()
		}
	}()
	return s
}

func (s *testSSHServer) record(m string) {
	s.mu.Lock()
	s.methods = append(s.methods, m)
	s.mu.Unlock()
}

func (s *testSSHServer) accepted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.methods)
}

// trust writes the server's host key to the user's known_hosts.
func (s *testSSHServer) trust(t *testing.T, profile string) {
	t.Helper()
	line := knownhosts.Line([]string{knownhosts.Normalize(s.addr)}, s.hostKey.PublicKey())
	writeFile(t, filepath.Join(profile, ".ssh", "known_hosts"), line+"\n")
}

// connect reaches the server as winuser, with config as ~/.ssh/config.
func (s *testSSHServer) connect(t *testing.T, profile, config string, prompt Prompter) error {
	t.Helper()
	host, port, _ := net.SplitHostPort(s.addr)
	writeFile(t, filepath.Join(profile, ".ssh", "config"),
		fmt.Sprintf("Host test\n  HostName %s\n  Port %s\n%s", host, port, config))
	r, err := newResolver(&Config{})
	if err != nil {
		t.Fatal(err)
	}
	d := &dialer{res: r, prompt: prompt, stderr: io.Discard, timeout: 20 * time.Second, logf: t.Logf}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := d.connect(ctx, sshconfig.Destination{Host: "test"}, 0, "")
	if err != nil {
		return err
	}
	return c.Close()
}

// serveAgent serves the ssh-agent protocol on a named pipe, holding key,
// as Windows' ssh-agent service does. The server side uses plain
// synchronous pipe calls: under Wine, go-winio's listener never sees a
// client connect (its overlapped ConnectNamedPipe is not completed), while
// its dialer, the half gosh uses, works.
func serveAgent(t *testing.T, pipe string, key ed25519.PrivateKey) {
	t.Helper()
	kr := agent.NewKeyring()
	if err := kr.Add(agent.AddedKey{PrivateKey: key}); err != nil {
		t.Fatal(err)
	}
	name, err := windows.UTF16PtrFromString(pipe)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	done := make(chan struct{})
	listen := func() (windows.Handle, error) {
		return windows.CreateNamedPipe(name, windows.PIPE_ACCESS_DUPLEX,
			windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT,
			windows.PIPE_UNLIMITED_INSTANCES, 4096, 4096, 0, nil)
	}
	h, err := listen()
	if err != nil {
		t.Fatalf("listening on %s: %v", pipe, err)
	}
	go func() {
		defer close(done)
		for {
			err := windows.ConnectNamedPipe(h, nil)
			if stop.Load() {
				windows.CloseHandle(h)
				return
			}
			if err != nil && err != windows.ERROR_PIPE_CONNECTED {
				windows.CloseHandle(h)
				return
			}
			go func(c *os.File) {
				defer c.Close()
				agent.ServeAgent(kr, c)
			}(os.NewFile(uintptr(h), pipe))
			if h, err = listen(); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		stop.Store(true)
		// Wake the pending ConnectNamedPipe.
		if c, err := os.OpenFile(pipe, os.O_RDWR, 0); err == nil {
			c.Close()
		}
		<-done
	})
}

func TestWindowsAgentPipe(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	pub, _ := ssh.NewPublicKey(key.Public())
	want := []string{"publickey " + ssh.FingerprintSHA256(pub)}

	t.Run("default pipe", func(t *testing.T) {
		profile, _ := windowsUser(t)
		serveAgent(t, defaultAgent, key)
		s := newTestSSHServer(t, pub)
		s.trust(t, profile)
		if err := s.connect(t, profile, "  PasswordAuthentication no\n  KbdInteractiveAuthentication no\n", nil); err != nil {
			t.Fatalf("connect through the agent on %s: %v", defaultAgent, err)
		}
		if got := s.accepted(); !slices.Equal(got, want) {
			t.Errorf("server accepted %q, want %q", got, want)
		}
	})
	t.Run("SSH_AUTH_SOCK", func(t *testing.T) {
		profile, _ := windowsUser(t)
		pipe := fmt.Sprintf(`\\.\pipe\gosh-test-agent-%d`, os.Getpid())
		serveAgent(t, pipe, key)
		t.Setenv("SSH_AUTH_SOCK", pipe)
		s := newTestSSHServer(t, pub)
		s.trust(t, profile)
		if err := s.connect(t, profile, "  PasswordAuthentication no\n  KbdInteractiveAuthentication no\n", nil); err != nil {
			t.Fatalf("connect through the agent on %s: %v", pipe, err)
		}
		if got := s.accepted(); !slices.Equal(got, want) {
			t.Errorf("server accepted %q, want %q", got, want)
		}
	})
}

// typingPrompter answers prompts by typing into the console, then reading
// the answer back through a real TerminalPrompter (CONIN$ and CONOUT$). It
// records the questions and whether each was asked with echo.
type typingPrompter struct {
	t       *testing.T
	console *TerminalPrompter
	answers map[string]string // question substring → typed answer

	asked []string
}

func (p *typingPrompter) Ask(question string, echo bool) (string, error) {
	p.asked = append(p.asked, fmt.Sprintf("%s echo=%v", strings.TrimSpace(question), echo))
	for q, a := range p.answers {
		if strings.Contains(question, q) {
			if err := wincon.Type(a + "\r"); err != nil {
				p.t.Errorf("typing into the console: %v", err)
			}
			return p.console.Ask(question, echo)
		}
	}
	p.t.Errorf("unexpected prompt %q", question)
	return "", io.EOF
}

func TestWindowsConsolePrompts(t *testing.T) {
	console, err := NewTerminalPrompter()
	if err != nil {
		t.Fatalf("no console: %v", err)
	}
	defer console.Close()

	t.Run("host key then password", func(t *testing.T) {
		profile, _ := windowsUser(t)
		s := newTestSSHServer(t)
		p := &typingPrompter{t: t, console: console, answers: map[string]string{
			"continue connecting": "yes", "password": "hunter2"}}
		if err := s.connect(t, profile, "  PubkeyAuthentication no\n  KbdInteractiveAuthentication no\n", p); err != nil {
			t.Fatalf("connect: %v (asked %q)", err, p.asked)
		}
		if got := s.accepted(); !slices.Equal(got, []string{"password"}) {
			t.Errorf("server accepted %q, want password", got)
		}
		if len(p.asked) != 2 || !strings.HasSuffix(p.asked[0], "echo=true") || !strings.HasSuffix(p.asked[1], "echo=false") {
			t.Errorf("asked %q, want the host key question (echoed) then the password (not echoed)", p.asked)
		}
		known, err := os.ReadFile(filepath.Join(profile, ".ssh", "known_hosts"))
		if err != nil || !strings.Contains(string(known), s.hostKey.PublicKey().Type()) {
			t.Errorf("the accepted host key was not saved to %%USERPROFILE%%\\.ssh\\known_hosts: %q %v", known, err)
		}
	})
	t.Run("keyboard-interactive", func(t *testing.T) {
		profile, _ := windowsUser(t)
		s := newTestSSHServer(t)
		s.trust(t, profile)
		p := &typingPrompter{t: t, console: console, answers: map[string]string{"Code": "4242"}}
		if err := s.connect(t, profile, "  PubkeyAuthentication no\n  PasswordAuthentication no\n", p); err != nil {
			t.Fatalf("connect: %v (asked %q)", err, p.asked)
		}
		if got := s.accepted(); !slices.Equal(got, []string{"keyboard-interactive"}) {
			t.Errorf("server accepted %q, want keyboard-interactive", got)
		}
	})
	t.Run("key passphrase", func(t *testing.T) {
		profile, _ := windowsUser(t)
		_, key, _ := ed25519.GenerateKey(rand.Reader)
		pub, _ := ssh.NewPublicKey(key.Public())
		block, err := ssh.MarshalPrivateKeyWithPassphrase(key, "", []byte("open sesame"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(profile, ".ssh", "id_ed25519"), string(pem.EncodeToMemory(block)))
		s := newTestSSHServer(t, pub)
		s.trust(t, profile)
		p := &typingPrompter{t: t, console: console, answers: map[string]string{"passphrase": "open sesame"}}
		if err := s.connect(t, profile, "  PasswordAuthentication no\n  KbdInteractiveAuthentication no\n", p); err != nil {
			t.Fatalf("connect: %v (asked %q)", err, p.asked)
		}
		if got := s.accepted(); len(got) != 1 || got[0] != "publickey "+ssh.FingerprintSHA256(pub) {
			t.Errorf("server accepted %q, want the key file's key", got)
		}
		if len(p.asked) != 1 || !strings.HasSuffix(p.asked[0], "echo=false") {
			t.Errorf("asked %q, want one passphrase prompt without echo", p.asked)
		}
	})
}

// TestWindowsMatchExec: Match exec runs its command line with no shell, as
// Windows' OpenSSH does (here this test binary, which exits 0 when told to
// echo its arguments; a program that does not exist does not match).
func TestWindowsMatchExec(t *testing.T) {
	profile, _ := windowsUser(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(echoArgsEnv, "1")
	writeFile(t, filepath.Join(profile, ".ssh", "config"), strings.Join([]string{
		"Match exec " + configWord(proxyQuote(exe)+" %h %p"),
		"  IdentityFile ~/.ssh/matched",
		"Match exec " + configWord(`C:\no\such\program.exe`),
		"  IdentityFile ~/.ssh/never",
		"",
	}, "\n"))
	r, err := newResolver(&Config{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.resolve(sshconfig.Destination{Host: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(profile, ".ssh", "matched")}; !slices.Equal(p.IdentityFiles, want) {
		t.Errorf("identity files %q, want %q", p.IdentityFiles, want)
	}
}
