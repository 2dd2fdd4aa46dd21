package bootstrap

import (
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gosh-term/gosh/internal/sshconfig"
)

// hostKeyChecker verifies server host keys against known_hosts files the
// way OpenSSH does, asking about unknown hosts and recording accepted keys.
type hostKeyChecker struct {
	userFiles   []string // UserKnownHostsFile; new keys go to the first
	globalFiles []string // GlobalKnownHostsFile; read only
	strict      string   // yes, ask, accept-new, no
	hash        bool     // HashKnownHosts
	batch       bool     // BatchMode: never ask
	prompt      Prompter
	stderr      io.Writer
	// caSignature, requiredRSASize and revoked are CASignatureAlgorithms,
	// RequiredRSASize and RevokedHostKeys.
	caSignature     []string
	requiredRSASize int
	revoked         []string

	err    error           // the last verification failure, for the caller's message
	warned map[string]bool // known_hosts lines already warned about ("file:line")
}

func newHostKeyChecker(p *sshconfig.Host, prompt Prompter, stderr io.Writer) *hostKeyChecker {
	return &hostKeyChecker{userFiles: p.UserKnownHosts, globalFiles: p.GlobalKnownHosts,
		strict: p.StrictHostKeyChecking, hash: p.HashKnownHosts, batch: p.BatchMode, prompt: prompt, stderr: stderr,
		caSignature: p.Algorithms.CASignature, requiredRSASize: p.Algorithms.RequiredRSASize, revoked: p.Algorithms.RevokedHostKeys}
}

// db loads the existing known_hosts files.
func (h *hostKeyChecker) db() (ssh.HostKeyCallback, error) {
	var files []string
	for _, f := range slices.Concat(h.userFiles, h.globalFiles) {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	cb, err := loadKnownHosts(files, h.warnLine)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	return cb, nil
}

// warnLine says once that a known_hosts line is skipped.
func (h *hostKeyChecker) warnLine(file string, line int, reason string) {
	at := fmt.Sprintf("%s:%d", file, line)
	if h.warned[at] {
		return
	}
	if h.warned == nil {
		h.warned = map[string]bool{}
	}
	h.warned[at] = true
	if h.stderr != nil {
		fmt.Fprintf(h.stderr, "gosh: %s: ignoring a line that cannot be read (%s)\n", at, reason)
	}
}

// probeKey is a public key that matches nothing; checking it lists the
// known keys of a host.
type probeKey struct{ blob []byte }

func (k probeKey) Type() string                        { return "gosh-probe" }
func (k probeKey) Marshal() []byte                     { return k.blob }
func (k probeKey) Verify([]byte, *ssh.Signature) error { return errors.New("bootstrap: probe key") }
func newProbeKey() probeKey                            { b := make([]byte, 32); rand.Read(b); return probeKey{b} }

var _ ssh.PublicKey = probeKey{}

// knownKeys returns the keys recorded for hostport ("host:port").
func (h *hostKeyChecker) knownKeys(hostport string) []knownhosts.KnownKey {
	cb, err := h.db()
	if err != nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if err := cb(hostport, zeroAddr{}, newProbeKey()); errors.As(err, &ke) {
		return ke.Want
	}
	return nil
}

// hostKeyAlgorithms returns the client's host key algorithms: configured
// (HostKeyAlgorithms; nil for the defaults) with, when knownFirst, the
// algorithms of the key types already known for the host first, as
// OpenSSH orders them; otherwise a server with several key types could
// present one that is not recorded. nil leaves x/crypto's defaults.
func (h *hostKeyChecker) hostKeyAlgorithms(hostport string, configured []string, knownFirst bool) []string {
	if !knownFirst {
		return configured
	}
	all := configured
	if all == nil {
		all = ssh.SupportedAlgorithms().HostKeys
	}
	var first []string
	for _, k := range h.knownKeys(hostport) {
		for _, a := range algorithmsForKeyType(k.Key.Type()) {
			if slices.Contains(all, a) && !slices.Contains(first, a) {
				first = append(first, a)
			}
		}
	}
	if len(first) == 0 {
		return configured
	}
	for _, a := range all {
		if !slices.Contains(first, a) {
			first = append(first, a)
		}
	}
	return first
}

func algorithmsForKeyType(t string) []string {
	switch t {
	case ssh.KeyAlgoRSA:
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	case ssh.CertAlgoRSAv01:
		return []string{ssh.CertAlgoRSASHA512v01, ssh.CertAlgoRSASHA256v01, ssh.CertAlgoRSAv01}
	}
	return []string{t}
}

// callback returns the ssh.HostKeyCallback for one host. hostport is the
// known_hosts name with port (HostKeyAlias or HostName).
func (h *hostKeyChecker) callback(hostport string) ssh.HostKeyCallback {
	return func(_ string, remote net.Addr, key ssh.PublicKey) error {
		h.err = h.check(hostport, remote, key)
		return h.err
	}
}

func (h *hostKeyChecker) check(hostport string, remote net.Addr, key ssh.PublicKey) error {
	name := knownhosts.Normalize(hostport)
	if err := h.policy(name, key); err != nil {
		return err
	}
	cb, err := h.db()
	if err != nil {
		return err
	}
	if cert, ok := key.(*ssh.Certificate); ok {
		var revoked *knownhosts.RevokedError
		if !slices.Contains(h.caSignature, cert.Signature.Format) {
			h.note(fmt.Sprintf("the host certificate of %s is signed with %s, which CASignatureAlgorithms does not allow; checking its plain key",
				name, cert.Signature.Format))
		} else if err := cb(hostport, zeroAddr{}, key); err == nil {
			return nil
		} else if errors.As(err, &revoked) {
			return &HostKeyMismatchError{Host: name, KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key),
				Known: []string{fmt.Sprintf("%s:%d", revoked.Revoked.Filename, revoked.Revoked.Line)}, Revoked: true}
		} else if !strings.Contains(err.Error(), "no authorities for hostname") {
			h.note(fmt.Sprintf("the host certificate of %s is not valid (%v); checking its plain key", name, err))
		}
		// As OpenSSH does, a certificate no known CA vouches for is
		// checked as the plain key it certifies.
		key = cert.Key
	}
	err = cb(hostport, zeroAddr{}, key)
	var revoked *knownhosts.RevokedError
	var ke *knownhosts.KeyError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &revoked):
		return &HostKeyMismatchError{Host: name, KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key),
			Known: []string{fmt.Sprintf("%s:%d", revoked.Revoked.Filename, revoked.Revoked.Line)}, Revoked: true}
	case !errors.As(err, &ke):
		return fmt.Errorf("bootstrap: checking host key: %w", err)
	}
	var same, other []string
	for _, w := range ke.Want {
		at := fmt.Sprintf("%s:%d", w.Filename, w.Line)
		if w.Key.Type() == key.Type() {
			same = append(same, at)
		} else {
			other = append(other, at)
		}
	}
	if len(same) > 0 {
		return &HostKeyMismatchError{Host: name, KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key), Known: same}
	}
	return h.unknown(hostport, remote, key, other)
}

// note tells the user something about a host key on stderr.
func (h *hostKeyChecker) note(msg string) {
	if h.stderr != nil {
		fmt.Fprintf(h.stderr, "gosh: %s\r\n", msg)
	}
}

// policy applies RequiredRSASize and RevokedHostKeys to the server's key.
func (h *hostKeyChecker) policy(name string, key ssh.PublicKey) error {
	if bits, ok := rsaBits(key); ok && bits < h.requiredRSASize {
		return &HostKeyPolicyError{Host: name, KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key),
			Reason: fmt.Sprintf("its RSA key has %d bits, fewer than RequiredRSASize %d", bits, h.requiredRSASize)}
	}
	for _, file := range h.revoked {
		revoked, err := revokedKey(file, key)
		if err != nil {
			return &HostKeyPolicyError{Host: name, KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key),
				Reason: fmt.Sprintf("RevokedHostKeys %s cannot be read, so no host key is trusted (%v)", file, err)}
		}
		if revoked {
			return &HostKeyMismatchError{Host: name, KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key),
				Known: []string{file}, Revoked: true}
		}
	}
	return nil
}

// rsaBits returns the size of an RSA key, or of the key an RSA
// certificate certifies.
func rsaBits(key ssh.PublicKey) (int, bool) {
	if c, ok := key.(*ssh.Certificate); ok {
		key = c.Key
	}
	ck, ok := key.(ssh.CryptoPublicKey)
	if !ok {
		return 0, false
	}
	rk, ok := ck.CryptoPublicKey().(*rsa.PublicKey)
	if !ok {
		return 0, false
	}
	return rk.N.BitLen(), true
}

// unknown applies StrictHostKeyChecking to a key that is not recorded.
func (h *hostKeyChecker) unknown(hostport string, remote net.Addr, key ssh.PublicKey, otherTypes []string) error {
	name := knownhosts.Normalize(hostport)
	fp := ssh.FingerprintSHA256(key)
	refuse := func(reason string) error {
		return &UnknownHostError{Host: name, KeyType: key.Type(), Fingerprint: fp, Reason: reason}
	}
	switch {
	case h.strict == "yes":
		return refuse("StrictHostKeyChecking is yes")
	case h.strict == "accept-new" && len(otherTypes) > 0:
		return refuse("keys of another type are known for it")
	case h.strict == "ask":
		if h.batch || h.prompt == nil {
			return refuse("no terminal to confirm it")
		}
		ok, err := h.confirm(name, remote, key, otherTypes)
		if err != nil {
			return refuse(err.Error())
		}
		if !ok {
			return refuse("not accepted")
		}
	}
	return h.record(hostport, key)
}

// confirm asks the OpenSSH question; "yes" or the fingerprint accepts.
func (h *hostKeyChecker) confirm(name string, remote net.Addr, key ssh.PublicKey, otherTypes []string) (bool, error) {
	fp := ssh.FingerprintSHA256(key)
	shown := name
	if ip := addrIP(remote); ip != "" && !strings.Contains(name, ip) {
		shown = fmt.Sprintf("%s (%s)", name, ip)
	}
	q := fmt.Sprintf("The authenticity of host '%s' can't be established.\n%s key fingerprint is %s.\n",
		shown, keyTypeName(key.Type()), fp)
	if len(otherTypes) > 0 {
		q += fmt.Sprintf("Keys of other types are already known for this host (%s).\n", strings.Join(otherTypes, ", "))
	}
	q += "Are you sure you want to continue connecting (yes/no/[fingerprint])? "
	for tries := 0; tries < 5; tries++ {
		a, err := h.prompt.Ask(q, true)
		if err != nil {
			return false, err
		}
		switch a = strings.TrimSpace(a); {
		case strings.EqualFold(a, "yes"), a == fp:
			return true, nil
		case strings.EqualFold(a, "no"), a == "":
			return false, nil
		}
		q = "Please type 'yes', 'no' or the fingerprint: "
	}
	return false, nil
}

// record appends the key to the first user known_hosts file.
func (h *hostKeyChecker) record(hostport string, key ssh.PublicKey) error {
	if len(h.userFiles) == 0 {
		return nil
	}
	entry := knownhosts.Normalize(hostport)
	if h.hash {
		entry = knownhosts.HashHostname(entry)
	}
	file := h.userFiles[0]
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("bootstrap: recording host key: %w", err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("bootstrap: recording host key: %w", err)
	}
	_, err = fmt.Fprintln(f, knownhosts.Line([]string{entry}, key))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bootstrap: recording host key: %w", err)
	}
	if h.stderr != nil {
		fmt.Fprintf(h.stderr, "Warning: Permanently added '%s' (%s) to the list of known hosts.\r\n",
			knownhosts.Normalize(hostport), keyTypeName(key.Type()))
	}
	return nil
}

// keyTypeName is OpenSSH's short name for a key type ("ED25519", "RSA").
func keyTypeName(t string) string {
	switch {
	case strings.Contains(t, "ed25519"):
		return "ED25519"
	case strings.Contains(t, "ecdsa"):
		return "ECDSA"
	case strings.Contains(t, "rsa"):
		return "RSA"
	}
	return strings.ToUpper(t)
}

func addrIP(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok && t.IP != nil && !t.IP.IsUnspecified() {
		return t.IP.String()
	}
	return ""
}

// zeroAddr is the remote address given to knownhosts checks: gosh checks
// the host name only (OpenSSH's CheckHostIP=no, its default).
type zeroAddr struct{}

func (zeroAddr) Network() string { return "tcp" }
func (zeroAddr) String() string  { return "0.0.0.0:0" }
