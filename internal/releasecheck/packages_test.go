//go:build releasecheck

package releasecheck

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// manPages are the man pages the command tree makes (go run -tags gendocs
// ./cmd/gosh gendocs, as the release's before hook runs it): every one must
// ship.
func manPages(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "-tags", "gendocs", "./cmd/gosh", "gendocs", dir)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gendocs: %v\n%s", err, out)
	}
	names, err := filepath.Glob(filepath.Join(dir, "man", "*.1"))
	if err != nil || len(names) < 20 {
		t.Fatalf("gendocs wrote %d man pages (%v)", len(names), err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}

// packageFiles are the files every deb, rpm and apk installs, besides the
// man pages; zshCompletion is where each format's zsh looks.
var (
	packageFiles = []string{"/usr/bin/gosh", "/usr/share/bash-completion/completions/gosh",
		"/usr/share/fish/vendor_completions.d/gosh.fish", "/usr/share/doc/gosh/copyright"}
	zshCompletion = map[string]string{
		".deb": "/usr/share/zsh/vendor-completions/_gosh",
		".rpm": "/usr/share/zsh/site-functions/_gosh",
		".apk": "/usr/share/zsh/site-functions/_gosh",
	}
)

// TestPackages: each deb, rpm and apk installs the binary, every man page,
// and the completions where its distributions' shells look for them.
func TestPackages(t *testing.T) {
	d := dist(t)
	pages := manPages(t)
	var pkgs []string
	for _, ext := range []string{".deb", ".rpm", ".apk"} {
		m, _ := filepath.Glob(filepath.Join(d, "*"+ext))
		if len(m) == 0 {
			t.Errorf("no %s packages in %s", ext, d)
		}
		pkgs = append(pkgs, m...)
	}
	for _, p := range pkgs {
		ext := filepath.Ext(p)
		var files []string
		var err error
		switch ext {
		case ".deb":
			files, err = debFiles(p)
		case ".rpm":
			files, err = rpmFiles(p)
		case ".apk":
			files, err = apkFiles(p)
		}
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
			continue
		}
		want := append(slices.Clone(packageFiles), zshCompletion[ext])
		for _, m := range pages {
			want = append(want, "/usr/share/man/man1/"+m)
		}
		for _, f := range want {
			if !slices.Contains(files, f) {
				t.Errorf("%s lacks %s", filepath.Base(p), f)
			}
		}
		for other, z := range zshCompletion {
			if z != zshCompletion[ext] && slices.Contains(files, z) {
				t.Errorf("%s has %s, where %s packages put zsh completions", filepath.Base(p), z, other)
			}
		}
	}
}

// TestCask: the Homebrew cask installs every man page and the
// completions, and takes the quarantine off the binary with
// postflight_steps on macOS, not with the postflight block Homebrew
// deprecates.
func TestCask(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(dist(t), "homebrew", "Casks", "gosh.rb"))
	if err != nil {
		t.Fatal(err)
	}
	cask := string(b)
	for _, m := range manPages(t) {
		if !strings.Contains(cask, `manpage "man/`+m+`"`) {
			t.Errorf("the cask does not install man/%s", m)
		}
	}
	for _, want := range []string{`bash_completion "completions/gosh.bash"`, `zsh_completion "completions/gosh.zsh"`,
		`fish_completion "completions/gosh.fish"`, `binary "gosh"`} {
		if !strings.Contains(cask, want) {
			t.Errorf("the cask lacks %s", want)
		}
	}
	steps := regexp.MustCompile(`(?s)on_macos do\s+postflight_steps do\s+run "/usr/bin/xattr", args: \["-dr", "com\.apple\.quarantine", "\{\{staged_path\}\}/gosh"\], must_succeed: false\s+end\s+end`)
	if !steps.MatchString(cask) {
		t.Errorf("the cask does not take the quarantine off with postflight_steps on macOS:\n%s", cask)
	}
	if regexp.MustCompile(`(?m)^\s*(pre|post)flight do`).MatchString(cask) {
		t.Errorf("the cask has a deprecated flight block:\n%s", cask)
	}
}

// debFiles lists the files of a deb: its ar archive's data.tar.gz.
func debFiles(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	magic := make([]byte, 8)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "!<arch>\n" {
		return nil, errors.New("not an ar archive")
	}
	for {
		hdr := make([]byte, 60)
		if _, err := io.ReadFull(r, hdr); err != nil {
			return nil, errors.New("no data.tar.gz")
		}
		name := strings.TrimRight(strings.TrimSpace(string(hdr[:16])), "/")
		var size int64
		if _, err := fmt.Sscan(string(hdr[48:58]), &size); err != nil {
			return nil, fmt.Errorf("ar member %q: bad size", name)
		}
		body := io.LimitReader(r, size)
		if name == "data.tar.gz" {
			zr, err := gzip.NewReader(body)
			if err != nil {
				return nil, err
			}
			return tarFiles(bufio.NewReader(zr))
		}
		if _, err := io.Copy(io.Discard, body); err != nil {
			return nil, err
		}
		if size%2 == 1 {
			r.ReadByte()
		}
	}
}

// apkFiles lists the files of an apk: gzip members (signature, control,
// data) whose tar segments read as one stream.
func apkFiles(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	files, err := tarFiles(bufio.NewReader(zr))
	var data []string
	for _, n := range files {
		if !strings.HasPrefix(n, "/.") { // .PKGINFO, .SIGN.*
			data = append(data, n)
		}
	}
	return data, err
}

// tarFiles lists the regular files and links of one or more tar streams
// read back to back, as absolute paths.
func tarFiles(r *bufio.Reader) ([]string, error) {
	var names []string
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			if _, err := r.Peek(1); err != nil {
				return names, nil
			}
			tr = tar.NewReader(r) // the next segment
			continue
		}
		if err != nil {
			return names, err
		}
		if h.Typeflag != tar.TypeDir {
			names = append(names, "/"+strings.TrimPrefix(strings.TrimPrefix(h.Name, "./"), "/"))
		}
	}
}

// rpmFiles lists the files of an rpm from its header (BASENAMES,
// DIRNAMES and DIRINDEXES), without its payload.
func rpmFiles(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 96 || !bytes.Equal(b[:4], []byte{0xed, 0xab, 0xee, 0xdb}) {
		return nil, errors.New("not an rpm")
	}
	off := 96
	_, n, err := rpmHeader(b, off)
	if err != nil {
		return nil, fmt.Errorf("signature header: %w", err)
	}
	off += n
	off += (8 - off%8) % 8 // the signature header is padded to 8 bytes
	hdr, _, err := rpmHeader(b, off)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	const dirIndexes, baseNames, dirNames = 1116, 1117, 1118
	base, dirs, idx := hdr.strings(baseNames), hdr.strings(dirNames), hdr.int32s(dirIndexes)
	if len(base) == 0 || len(idx) != len(base) {
		return nil, errors.New("no file list in the header")
	}
	var names []string
	for i, bn := range base {
		if int(idx[i]) >= len(dirs) {
			return nil, errors.New("bad DIRINDEXES")
		}
		names = append(names, dirs[idx[i]]+bn)
	}
	return names, nil
}

// rpmHdr is an rpm header structure: its index and data store.
type rpmHdr struct {
	index map[int32][3]int32 // tag → type, offset, count
	store []byte
}

// rpmHeader reads the header structure at off in b and returns it with its
// length.
func rpmHeader(b []byte, off int) (rpmHdr, int, error) {
	if off+16 > len(b) || !bytes.Equal(b[off:off+3], []byte{0x8e, 0xad, 0xe8}) {
		return rpmHdr{}, 0, errors.New("bad magic")
	}
	nindex := int(binary.BigEndian.Uint32(b[off+8:]))
	hsize := int(binary.BigEndian.Uint32(b[off+12:]))
	start := off + 16
	end := start + 16*nindex + hsize
	if nindex > 1<<16 || hsize > 1<<28 || end > len(b) {
		return rpmHdr{}, 0, errors.New("truncated")
	}
	h := rpmHdr{index: map[int32][3]int32{}, store: b[start+16*nindex : end]}
	for i := range nindex {
		e := b[start+16*i:]
		tag := int32(binary.BigEndian.Uint32(e))
		h.index[tag] = [3]int32{int32(binary.BigEndian.Uint32(e[4:])), int32(binary.BigEndian.Uint32(e[8:])), int32(binary.BigEndian.Uint32(e[12:]))}
	}
	return h, end - off, nil
}

func (h rpmHdr) strings(tag int32) []string {
	e, ok := h.index[tag]
	if !ok || e[1] < 0 || int(e[1]) > len(h.store) {
		return nil
	}
	parts := bytes.SplitN(h.store[e[1]:], []byte{0}, int(e[2])+1)
	if len(parts) <= int(e[2]) {
		return nil
	}
	var out []string
	for _, p := range parts[:e[2]] {
		out = append(out, string(p))
	}
	return out
}

func (h rpmHdr) int32s(tag int32) []int32 {
	e, ok := h.index[tag]
	if !ok || e[1] < 0 || int(e[1])+4*int(e[2]) > len(h.store) {
		return nil
	}
	out := make([]int32, e[2])
	for i := range out {
		out[i] = int32(binary.BigEndian.Uint32(h.store[int(e[1])+4*i:]))
	}
	return out
}
