package bootstrap

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/gosh-term/gosh/internal/logf"
	"github.com/gosh-term/gosh/internal/sshconfig"
)

// maxKeyFileSize bounds a private key file read from disk.
const maxKeyFileSize = 1 << 20

// authenticator builds the client authentication methods for one host and
// remembers which were tried, for [AuthError].
type authenticator struct {
	p        *sshconfig.Host
	prompt   Prompter // nil: nothing can be asked
	stderr   io.Writer
	logf     logf.Func
	onPrompt func() // called before anything is asked (lifts the handshake deadline)

	agentConn net.Conn // open during the handshake
	tried     []string
	locked    []string // encrypted key files skipped: no passphrase could be asked
}

// methods returns publickey (agent keys, then key files), then
// keyboard-interactive and password, as OpenSSH orders them.
func (a *authenticator) methods() []ssh.AuthMethod {
	var m []ssh.AuthMethod
	if a.p.PubkeyAuth {
		m = append(m, ssh.PublicKeysCallback(a.signers))
	}
	if a.prompt == nil || a.p.BatchMode {
		return m
	}
	tries := a.p.PasswordPrompts
	if a.p.KbdInteractiveAuth {
		m = append(m, ssh.RetryableAuthMethod(ssh.KeyboardInteractive(a.keyboardInteractive), tries))
	}
	if a.p.PasswordAuth {
		m = append(m, ssh.RetryableAuthMethod(ssh.PasswordCallback(a.password), tries))
	}
	return m
}

// close releases the agent connection.
func (a *authenticator) close() {
	if a.agentConn != nil {
		a.agentConn.Close()
		a.agentConn = nil
	}
}

func (a *authenticator) note(method string) {
	if len(a.tried) == 0 || a.tried[len(a.tried)-1] != method {
		a.tried = append(a.tried, method)
	}
}

// signers lists agent keys first (only those matching an IdentityFile when
// IdentitiesOnly is set), then the key files the agent does not hold.
func (a *authenticator) signers() ([]ssh.Signer, error) {
	a.note("publickey")
	files := a.loadKeyFiles()
	var out []ssh.Signer
	inAgent := map[string]bool{}
	for _, s := range a.agentSigners() {
		blob := string(s.PublicKey().Marshal())
		matches := false
		for _, f := range files {
			if string(f.PublicKey().Marshal()) == blob {
				matches = true
			}
		}
		if a.p.IdentitiesOnly && !matches {
			continue
		}
		inAgent[blob] = true
		out = append(out, s)
	}
	for _, f := range files {
		if inAgent[string(f.PublicKey().Marshal())] {
			continue
		}
		if ls, ok := f.(*lazySigner); ok && (a.prompt == nil || a.p.BatchMode) {
			// OpenSSH skips such a key too; the AuthError says why.
			a.locked = append(a.locked, ls.path)
			continue
		}
		out = append(out, f)
	}
	out = a.acceptable(a.withCertificates(out))
	a.logf.Printf("bootstrap: %d public keys to offer", len(out))
	return out, nil
}

// acceptable applies RequiredRSASize and PubkeyAcceptedAlgorithms to the
// keys to offer: a smaller RSA key, or one of a type the list leaves out,
// is not offered; an RSA key may sign only with the algorithms the list
// allows, preferring them in its order.
func (a *authenticator) acceptable(keys []ssh.Signer) []ssh.Signer {
	var out []ssh.Signer
	for _, k := range keys {
		pub := k.PublicKey()
		fp := ssh.FingerprintSHA256(pub)
		if bits, ok := rsaBits(pub); ok && bits < a.p.Algorithms.RequiredRSASize {
			a.logf.Printf("bootstrap: not offering the %d-bit RSA key %s: RequiredRSASize is %d", bits, fp, a.p.Algorithms.RequiredRSASize)
			continue
		}
		if a.p.Algorithms.Pubkey == nil {
			out = append(out, k)
			continue
		}
		algos := sshconfig.KeyAlgorithms(pub.Type(), a.p.Algorithms.Pubkey)
		if len(algos) == 0 {
			a.logf.Printf("bootstrap: not offering the %s key %s: PubkeyAcceptedAlgorithms leaves out its type", pub.Type(), fp)
			continue
		}
		r, err := restrictSigner(k, algos)
		if err != nil {
			a.logf.Printf("bootstrap: not offering the %s key %s: %v", pub.Type(), fp, err)
			continue
		}
		out = append(out, r)
	}
	return out
}

// restrictSigner makes s sign only with algos (protocol names for its key
// type, certificate forms for a certificate), in that order of preference.
func restrictSigner(s ssh.Signer, algos []string) (ssh.Signer, error) {
	as, ok := s.(ssh.AlgorithmSigner)
	if !ok {
		// It signs with its key type's algorithm only, which algos holds.
		return s, nil
	}
	var plain []string
	for _, a := range algos {
		p := sshconfig.PlainAlgorithm(a)
		if ms, ok := s.(ssh.MultiAlgorithmSigner); ok && !slices.Contains(ms.Algorithms(), p) {
			continue
		}
		plain = append(plain, p)
	}
	if len(plain) == 0 {
		return nil, errors.New("it cannot sign with the algorithms PubkeyAcceptedAlgorithms allows")
	}
	return ssh.NewSignerWithAlgorithms(as, plain)
}

// withCertificates puts, before each key, the user certificates for it:
// those named by CertificateFile and, as OpenSSH does, each identity
// file's "-cert.pub" companion. A certificate whose private key is neither
// in a key file nor in the agent is skipped, with a log line.
func (a *authenticator) withCertificates(keys []ssh.Signer) []ssh.Signer {
	paths := slices.Clone(a.p.CertificateFiles)
	for _, f := range a.p.IdentityFiles {
		paths = append(paths, f+"-cert.pub")
	}
	certs := map[string][]*ssh.Certificate{} // by the certified key's blob
	seen := map[string]bool{}
	for _, path := range paths {
		cert, err := loadCertificate(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			a.logf.Printf("bootstrap: certificate %s: %v", path, err)
			continue
		}
		blob := string(cert.Marshal())
		if seen[blob] {
			continue
		}
		seen[blob] = true
		k := string(cert.Key.Marshal())
		certs[k] = append(certs[k], cert)
	}
	if len(certs) == 0 {
		return keys
	}
	out := make([]ssh.Signer, 0, len(keys)+len(certs))
	for _, key := range keys {
		k := string(key.PublicKey().Marshal())
		for _, c := range certs[k] {
			cs, err := ssh.NewCertSigner(c, key)
			if err != nil {
				a.logf.Printf("bootstrap: certificate for %s: %v", ssh.FingerprintSHA256(key.PublicKey()), err)
				continue
			}
			out = append(out, cs)
		}
		delete(certs, k)
		out = append(out, key)
	}
	for _, cs := range certs {
		for _, c := range cs {
			a.logf.Printf("bootstrap: certificate %q: no private key for it (IdentityFile or agent)", c.KeyId)
		}
	}
	return out
}

// loadCertificate reads an OpenSSH user certificate (a "-cert.pub" file).
func loadCertificate(path string) (*ssh.Certificate, error) {
	b, err := readLimited(path, maxKeyFileSize)
	if err != nil {
		return nil, err
	}
	k, _, _, _, err := ssh.ParseAuthorizedKey(b)
	if err != nil {
		return nil, err
	}
	c, ok := k.(*ssh.Certificate)
	if !ok || c.CertType != ssh.UserCert {
		return nil, errors.New("not a user certificate")
	}
	return c, nil
}

func (a *authenticator) agentSigners() []ssh.Signer {
	if a.p.IdentityAgent == "" {
		return nil
	}
	c, err := dialAgent(a.p.IdentityAgent)
	if err != nil {
		a.logf.Printf("bootstrap: ssh-agent %s: %v", a.p.IdentityAgent, err)
		return nil
	}
	a.agentConn = c
	s, err := agent.NewClient(c).Signers()
	if err != nil {
		a.logf.Printf("bootstrap: ssh-agent %s: %v", a.p.IdentityAgent, err)
		return nil
	}
	return s
}

// loadKeyFiles reads the identity files that exist. Encrypted keys become
// signers that ask for the passphrase only when the server accepts the
// public key.
func (a *authenticator) loadKeyFiles() []ssh.Signer {
	var out []ssh.Signer
	for _, path := range a.p.IdentityFiles {
		s, err := a.loadKeyFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			a.logf.Printf("bootstrap: identity %s: %v", path, err)
		default:
			out = append(out, s)
		}
	}
	return out
}

func (a *authenticator) loadKeyFile(path string) (ssh.Signer, error) {
	pem, err := readLimited(path, maxKeyFileSize)
	if err != nil {
		return nil, err
	}
	s, err := ssh.ParsePrivateKey(pem)
	var missing *ssh.PassphraseMissingError
	if !errors.As(err, &missing) {
		return s, err
	}
	pub := missing.PublicKey
	if pub == nil {
		b, err := readLimited(path+".pub", maxKeyFileSize)
		if err != nil {
			return nil, fmt.Errorf("encrypted key without a public key: %w", err)
		}
		if pub, _, _, _, err = ssh.ParseAuthorizedKey(b); err != nil {
			return nil, err
		}
	}
	return &lazySigner{path: path, pub: pub, pem: pem, a: a}, nil
}

func (a *authenticator) ask(question string, echo bool) (string, error) {
	if a.prompt == nil || a.p.BatchMode {
		return "", ErrNoPrompt
	}
	if a.onPrompt != nil {
		a.onPrompt()
	}
	return a.prompt.Ask(question, echo)
}

func (a *authenticator) password() (string, error) {
	a.note("password")
	return a.ask(fmt.Sprintf("%s@%s's password: ", a.p.User, a.p.HostName), false)
}

func (a *authenticator) keyboardInteractive(name, instruction string, questions []string, echos []bool) ([]string, error) {
	a.note("keyboard-interactive")
	if len(questions) == 0 {
		return nil, nil
	}
	for _, s := range []string{name, instruction} {
		if s = strings.TrimSpace(s); s != "" {
			fmt.Fprintf(a.stderr, "%s\r\n", s)
		}
	}
	answers := make([]string, len(questions))
	for i, q := range questions {
		ans, err := a.ask(q, echos[i])
		if err != nil {
			return nil, err
		}
		answers[i] = ans
	}
	return answers, nil
}

// lazySigner is an encrypted private key that is decrypted on first use.
type lazySigner struct {
	path   string
	pub    ssh.PublicKey
	pem    []byte
	a      *authenticator
	signer ssh.AlgorithmSigner
}

func (s *lazySigner) PublicKey() ssh.PublicKey { return s.pub }

func (s *lazySigner) Sign(r io.Reader, data []byte) (*ssh.Signature, error) {
	return s.SignWithAlgorithm(r, data, "")
}

// Algorithms lists the signature algorithms of the key type.
func (s *lazySigner) Algorithms() []string { return algorithmsForKeyType(s.pub.Type()) }

func (s *lazySigner) SignWithAlgorithm(r io.Reader, data []byte, algorithm string) (*ssh.Signature, error) {
	if s.signer == nil {
		if err := s.decrypt(); err != nil {
			return nil, err
		}
	}
	return s.signer.SignWithAlgorithm(r, data, algorithm)
}

func (s *lazySigner) decrypt() error {
	q := fmt.Sprintf("Enter passphrase for key '%s': ", s.path)
	for range s.a.p.PasswordPrompts {
		pass, err := s.a.ask(q, false)
		if err != nil {
			return err
		}
		if pass == "" {
			break
		}
		k, err := ssh.ParsePrivateKeyWithPassphrase(s.pem, []byte(pass))
		if err == nil {
			as, ok := k.(ssh.AlgorithmSigner)
			if !ok {
				return fmt.Errorf("bootstrap: key %s cannot choose a signature algorithm", s.path)
			}
			s.signer = as
			return nil
		}
		if !errors.Is(err, x509.IncorrectPasswordError) {
			return fmt.Errorf("bootstrap: key %s: %w", s.path, err)
		}
		q = "Bad passphrase, try again for " + s.path + ": "
	}
	return fmt.Errorf("bootstrap: no passphrase for key %s", s.path)
}

func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b.Bytes(), nil
}

// DialAgent connects to the SSH agent at path: a Unix socket, or on
// Windows also a named pipe (the OpenSSH agent's), as authentication
// does. The session forwards the server's agent connections to it
// (gosh connect -A).
func DialAgent(path string) (net.Conn, error) { return dialAgent(path) }
