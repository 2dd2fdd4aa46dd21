//go:build unix

package bootstrap

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// What every self-upload carries: the gzip stream of the gosh binary.
// docs/architecture.md ("What an upload carries") has the figures.

// payloadBudget is the most the gzip stream of gosh for linux/amd64,
// built as released, may weigh. It was set just above its size (4.32 MB)
// once text/template's reflection and net/http were out of the binary,
// and raised to 4.50 MB for the forwarding stream (internal/stream and its
// glue: 0.11 MB of the binary, 0.05 MB of the stream, 4.45 MB in all),
// then to 4.55 MB for gVisor's fix of a CUBIC window shrunk to zero,
// which wedged the benchmark's SSH baseline (google/gvisor#13958; the
// newer netstack adds 0.10 MB to the binary, 0.034 MB to the stream:
// 4.47 -> 4.51 MB).
// When it fails: find what grew with TestPayloadBreakdown, and cut it, or
// raise the budget in a commit that says what the bytes buy.
const payloadBudget = 4_550_000

// TestUploadPayloadBudget builds gosh for linux/amd64 as the release does
// and fails if its gzip stream (at the level uploads use) is over budget.
func TestUploadPayloadBudget(t *testing.T) {
	bin := buildRelease(t, "linux", "amd64", true)
	size, gz := gzipSize(t, bin)
	t.Logf("gosh linux/amd64: %d bytes, gzip stream %d bytes (budget %d)", size, gz, payloadBudget)
	if gz > payloadBudget {
		t.Errorf("the upload of gosh for linux/amd64 is %d bytes, over its budget of %d: see what grew with "+
			"GOSH_MEASURE=1 go test -run TestPayloadBreakdown -v ./internal/bootstrap", gz, payloadBudget)
	}
}

// notInBinary are packages that must not be linked into gosh: net/http
// and crypto/tls (2 MB of the binary, 0.8 MB of every upload) for the
// release download, which curl does (fetch.go).
var notInBinary = []string{"net/http", "crypto/tls"}

// TestBinaryLeavesOut checks that gosh, for the release's client
// platforms, links none of notInBinary, and that the linker could drop
// unused methods: a reachable reflect.Value.Method or MethodByName (which
// text/template brings, say through cobra's SetVersionTemplate) makes it
// keep every exported method of every type in the binary, 3 MB of it.
func TestBinaryLeavesOut(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, goos := range []string{"linux", "darwin", "windows", "freebsd"} {
		cmd := exec.Command("go", "list", "-deps", "./cmd/gosh")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		deps := strings.Fields(string(out))
		for _, p := range notInBinary {
			if slices.Contains(deps, p) {
				t.Errorf("gosh for %s links %s", goos, p)
			}
		}
	}
	out, err := exec.Command("go", "tool", "nm", buildGosh(t)).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && (f[2] == "reflect.Value.Method" || f[2] == "reflect.Value.MethodByName") {
			t.Errorf("gosh links %s: the linker keeps every exported method", f[2])
		}
	}
}

// TestPayloadBreakdown logs what an upload carries, for each platform the
// release has a server for (and Windows): the binary as released and its
// gzip stream; then, for linux/amd64, its symbols by package and by
// module, with what each group's bytes weigh in gzip on their own. It
// only logs (the build of eleven binaries takes minutes):
//
//	GOSH_MEASURE=1 go test -run TestPayloadBreakdown -v -timeout 30m ./internal/bootstrap/
func TestPayloadBreakdown(t *testing.T) {
	if os.Getenv(measureEnv) != "1" {
		t.Skipf("a measurement of minutes: run with %s=1", measureEnv)
	}
	t.Logf("%-15s  %10s  %10s  %12s", "platform", "binary", "gzip", "at 1 Mbit/s")
	for _, p := range append(slices.Clone(ServerPlatforms), [2]string{"windows", "amd64"}) {
		size, gz := gzipSize(t, buildRelease(t, p[0], p[1], true))
		t.Logf("%-15s  %10d  %10d  %11.1fs", p[0]+"/"+p[1], size, gz, float64(gz)*8/1e6)
	}
	bin := buildRelease(t, "linux", "amd64", false)
	for _, byModule := range []bool{false, true} {
		rows := symbolGroups(t, bin, byModule)
		t.Logf("%-48s  %9s  %9s", "package", "symbols", "gzip")
		var total, totalGz int64
		for i, r := range rows {
			total += r.size
			totalGz += r.gz
			if i < 30 {
				t.Logf("%-48s  %9d  %9d", r.name, r.size, r.gz)
			}
		}
		t.Logf("%-48s  %9d  %9d", "all symbols (without the function tables)", total, totalGz)
	}
}

// buildRelease builds ./cmd/gosh for goos/goarch as the release does
// (-trimpath, no cgo, with strip -s -w) into a temporary directory.
func buildRelease(t *testing.T, goos, goarch string, strip bool) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "gosh")
	args := []string{"build", "-trimpath", "-o", bin}
	if strip {
		args = append(args, "-ldflags=-s -w")
	}
	cmd := exec.Command("go", append(args, "./cmd/gosh")...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=%s GOARCH=%s go build: %v\n%s", goos, goarch, err, out)
	}
	return bin
}

// gzipSize returns the size of the file at path and of its gzip stream at
// the level uploads use.
func gzipSize(t *testing.T, path string) (size, gz int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(b)), gzipLen(b)
}

func gzipLen(b []byte) int64 {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, defaultGzipLevel)
	zw.Write(b)
	zw.Close()
	return int64(out.Len())
}

type symbolGroup struct {
	name     string
	size, gz int64
	data     []byte
}

// symbolGroups sums the symbols of the ELF binary at path that occupy
// the file (text, read-only and initialised data) by package, or by
// module for byModule (the standard library stays by package), biggest
// first, each with the gzip size of its bytes alone.
func symbolGroups(t *testing.T, path string, byModule bool) []symbolGroup {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]*symbolGroup{}
	for _, s := range syms {
		if s.Size == 0 || int(s.Section) <= 0 || int(s.Section) >= len(f.Sections) {
			continue
		}
		sec := f.Sections[s.Section]
		if sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		b := make([]byte, s.Size)
		if _, err := sec.ReadAt(b, int64(s.Value-sec.Addr)); err != nil {
			continue
		}
		name := symbolPackage(s.Name)
		if byModule {
			name = packageModule(name)
		}
		g := groups[name]
		if g == nil {
			g = &symbolGroup{name: name}
			groups[name] = g
		}
		g.size += int64(s.Size)
		g.data = append(g.data, b...)
	}
	var rows []symbolGroup
	for _, g := range groups {
		g.gz, g.data = gzipLen(g.data), nil
		rows = append(rows, *g)
	}
	slices.SortFunc(rows, func(a, b symbolGroup) int { return int(b.size - a.size) })
	return rows
}

// symbolPackage is the import path of the package a Go symbol belongs to,
// or a name in parentheses for the linker's own.
func symbolPackage(sym string) string {
	switch {
	case strings.HasPrefix(sym, "type:"), strings.HasPrefix(sym, "go:itab"):
		return "(types, itabs)"
	case strings.HasPrefix(sym, "go:"):
		return "(" + strings.SplitN(sym, ".", 2)[0] + ")"
	}
	if i := strings.IndexByte(sym, '['); i >= 0 {
		sym = sym[:i] // a generic instance: the type arguments name other packages
	}
	slash := strings.LastIndexByte(sym, '/')
	if i := strings.IndexByte(sym[slash+1:], '.'); i >= 0 {
		return sym[:slash+1+i]
	}
	return sym
}

// packageModule is the module of a package outside the standard library
// (which stays a package, as its vendored golang.org/x code).
func packageModule(pkg string) string {
	if !strings.Contains(strings.SplitN(pkg, "/", 2)[0], ".") || strings.HasPrefix(pkg, "(") {
		return pkg
	}
	parts := strings.Split(pkg, "/")
	n := 3 // host/owner/repo
	if strings.HasPrefix(pkg, "github.com/gosh-term/gosh/") {
		return pkg // gosh's own, by package
	}
	if parts[0] == "gvisor.dev" || parts[0] == "google.golang.org" {
		n = 2
	}
	return strings.Join(parts[:min(n, len(parts))], "/")
}
