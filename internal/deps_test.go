// Package internal_test enforces the repository rules that keep gosh's pure
// cores pure (docs/style.md rule 30): which packages may do I/O, who may read the
// clock or start goroutines, which modules the binary may depend on, and
// gofmt.
package internal_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/gosh-term/gosh"

// pureCores must not do I/O: they import none of forbiddenImports, directly
// or through another gosh package.
var pureCores = []string{
	module + "/internal/sspcrypto",
	module + "/internal/vt",
	module + "/internal/statesync",
	module + "/internal/predict",
	module + "/internal/stream",
	module + "/internal/termview",
}

var forbiddenImports = map[string]bool{"net": true, "os": true, "os/exec": true, "syscall": true}

// ioPaths are the only places, relative to the repository root, where
// non-test code may call time.Now or start goroutines.
var ioPaths = []string{
	"internal/ssp/conn", // conn.go, conn_unix.go, ...
	"internal/session/", // the loops; their I/O is injected, time is virtual in tests
	"internal/bootstrap/",
	"internal/bench/",
	"internal/daemon/",
	"internal/netwatch/",
	"internal/linkem/pipe", // the real-time pipe and the UDP relay; the model is a pure core
	"internal/linkem/relay",
	"internal/pty/",
	"internal/tty/",
	"internal/relay/",   // the relay's two directions and the client end's stream reader
	"internal/resume/",  // the client's saved sessions: files, locks, their timestamps
	"internal/e2etest/", // end-to-end test harness
	"cmd/",
}

// layers ranks every package: a package may import only gosh packages of a
// lower rank, so the graph has no upward (or sideways) arrow. A new
// package must be placed here.
var layers = map[string]int{
	"internal/buildinfo":           0,
	"internal/coredump":            0,
	"internal/sspcrypto":           0,
	"internal/logf":                0, // the injected log function's type
	"internal/enum":                0, // the flag enums' names
	"internal/linkem":              0,
	"internal/bench/workload":      0,
	"internal/bench/report":        0,
	"internal/bench/keylat":        1,
	"internal/bench/sshlink":       1,
	"internal/terminfo":            0,
	"internal/socks":               0,
	"internal/vt":                  0,
	"internal/stream":              0, // the congestion-controlled stream beside SSP (pure)
	"internal/pb":                  0,
	"internal/pb/hostpb":           0,
	"internal/pb/transportpb":      0,
	"internal/pb/userpb":           0,
	"internal/pty":                 0,
	"internal/resume":              0, // the client's saved sessions, for gosh connect --resume
	"internal/tty":                 0,
	"internal/wincon":              0, // the Windows console (and typing into it, for tests)
	"internal/netaddr":             1,
	"internal/netwatch":            1,
	"internal/relay":               1, // UDP over a stream (SSH), when UDP is blocked
	"internal/ssp/ssptest":         1,
	"internal/predict":             1,
	"internal/statesync":           1, // the SSP states: vt's screen plus the logs
	"internal/connectline":         1,
	"internal/vt/vttest":           1,
	"internal/ssp":                 2,
	"internal/sshconfig":           2, // ssh_config, destinations and ssh -o; no I/O of its own
	"internal/termview":            2, // the client's view of the user's terminal
	"internal/session":             3,
	"internal/session/sessiontest": 2,
	"internal/bootstrap":           3,
	"internal/bench":               4, // runs the session loops over emulated links
	"internal/e2etest":             3,
	"internal/daemon":              4,
	"cmd/gosh":                     5,
	"internal":                     5, // this test
}

// processIO are imports that act on the whole process, its files or its
// devices: the packages of ioInjected get all of that injected.
var processIO = []string{"os", "os/exec", "os/signal", "syscall", "golang.org/x/sys/", "golang.org/x/term", "github.com/creack/pty", "net"}

// allowedModules are the direct dependencies the design card permits.
// ProtonMail's go-crypto is a test-only oracle and must not reach the binary.
var allowedModules = map[string]bool{
	"golang.org/x/crypto":             true,
	"golang.org/x/sys":                true,
	"golang.org/x/term":               true,
	"github.com/creack/pty":           true,
	"google.golang.org/protobuf":      true,
	"github.com/spf13/cobra":          true,
	"github.com/spf13/pflag":          true, // cobra's flag package: its API takes *pflag.FlagSet and pflag.Value
	"github.com/ProtonMail/go-crypto": true, // test-only
	"github.com/Microsoft/go-winio":   true, // Windows: the OpenSSH agent's named pipe
	"gvisor.dev/gvisor":               true, // gosh bench: SSH over a real TCP in userspace
}

var testOnlyModules = []string{"github.com/ProtonMail/go-crypto"}

type listedPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
	Module       *struct{ Path string }
}

func goList(t *testing.T, args ...string) []listedPackage {
	t.Helper()
	return goListOS(t, "", args...)
}

// goListOS is goList for another GOOS ("" for the host's).
func goListOS(t *testing.T, goos string, args ...string) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	cmd.Dir = repoRoot(t)
	if goos != "" {
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd) // this file lives in <root>/internal
}

// TestPureCoresDoNoIO checks that the pure cores import neither the network
// nor the operating system, directly or through other gosh packages.
func TestPureCoresDoNoIO(t *testing.T) {
	all := map[string]listedPackage{}
	for _, p := range goList(t, "./...") {
		all[p.ImportPath] = p
	}
	for _, core := range pureCores {
		p, ok := all[core]
		if !ok {
			continue // not written yet; the layout test below reports missing packages
		}
		// Walk the core and every gosh package it reaches.
		seen := map[string]bool{}
		stack := []string{core}
		for len(stack) > 0 {
			cur := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[cur] {
				continue
			}
			seen[cur] = true
			for _, imp := range all[cur].Imports {
				if forbiddenImports[imp] {
					t.Errorf("%s imports %s (reached from pure core %s)", cur, imp, p.ImportPath)
				}
				if strings.HasPrefix(imp, module+"/") {
					stack = append(stack, imp)
				}
			}
		}
	}
}

// TestLayering checks that every import goes down the ranks of layers.
func TestLayering(t *testing.T) {
	for _, p := range goList(t, "./...") {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		rank, ok := layers[rel]
		if !ok {
			t.Errorf("package %s has no rank in layers (deps_test.go): place it", rel)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if r, ok := layers[dep]; ok && r >= rank {
				t.Errorf("%s (rank %d) imports %s (rank %d): an upward or sideways arrow", rel, rank, dep, r)
			}
		}
	}
}

// ioInjected are the packages that do no I/O of their own choosing: the
// session loops (sockets, terminals, programs and signals come in through
// their configuration) and the ssh_config resolver (files, the
// environment and Match exec's commands come in through its fields).
var ioInjected = []string{"internal/session", "internal/sshconfig"}

// TestSessionIOInjected checks that the packages of ioInjected touch no
// process, device, file or socket of their own: they import none of
// processIO.
func TestSessionIOInjected(t *testing.T) {
	for _, pkg := range ioInjected {
		for _, p := range goList(t, "./"+pkg) {
			for _, imp := range p.Imports {
				for _, bad := range processIO {
					if imp == bad || (strings.HasSuffix(bad, "/") && strings.HasPrefix(imp, bad)) {
						t.Errorf("%s imports %s; inject it instead", pkg, imp)
					}
				}
			}
		}
	}
}

// TestLayout checks that the packages of the design card exist.
func TestLayout(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range []string{"cmd/gosh", "internal/ssp", "internal/sspcrypto", "internal/vt",
		"internal/statesync", "internal/predict", "internal/bootstrap", "internal/session", "internal/bench", "testdata"} {
		if fi, err := os.Stat(filepath.Join(root, dir)); err != nil || !fi.IsDir() {
			t.Errorf("missing directory %s", dir)
		}
	}
}

// TestClockAndGoroutines checks that only the I/O shells read the clock or
// start goroutines (docs/style.md rules 1 and 3).
func TestClockAndGoroutines(t *testing.T) {
	root := repoRoot(t)
	forEachGoFile(t, root, func(rel string, f *ast.File, fset *token.FileSet) {
		if allowedIO(rel) {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: go statement outside the I/O shells", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" && (n.Sel.Name == "Now" || n.Sel.Name == "Since" || n.Sel.Name == "Until" || n.Sel.Name == "AfterFunc") {
					if importsTime(f) {
						t.Errorf("%s: time.%s outside the I/O shells; take now as an argument", fset.Position(n.Pos()), n.Sel.Name)
					}
				}
			}
			return true
		})
	})
}

func importsTime(f *ast.File) bool {
	for _, imp := range f.Imports {
		if imp.Path.Value == `"time"` && (imp.Name == nil || imp.Name.Name == "time") {
			return true
		}
	}
	return false
}

// TestLogfPrintf checks that a logf is called through its Printf
// (docs/style.md rule 5): a logf.Func may be nil, and calling a nil one
// directly panics, where Printf discards.
func TestLogfPrintf(t *testing.T) {
	root := repoRoot(t)
	forEachGoFile(t, root, func(rel string, f *ast.File, fset *token.FileSet) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			direct := false
			switch fun := call.Fun.(type) {
			case *ast.Ident:
				direct = fun.Name == "logf"
			case *ast.SelectorExpr:
				direct = fun.Sel.Name == "logf"
			}
			if direct {
				t.Errorf("%s: logf called directly; call logf.Printf, which a nil logf survives", fset.Position(call.Pos()))
			}
			return true
		})
	})
}

func allowedIO(rel string) bool {
	rel = filepath.ToSlash(rel)
	for _, p := range ioPaths {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

// forEachGoFile parses every non-test, non-generated Go file under root.
func forEachGoFile(t *testing.T, root string, fn func(rel string, f *ast.File, fset *token.FileSet)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Errorf("parsing %s: %v", path, err)
			return nil
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		fn(rel, f, fset)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDirectDependencies checks the modules gosh's packages import
// directly (read from go list, not from go.mod's comments) against the
// design card, and that test-only oracles stay out of the binary. go.mod
// itself is kept tidy by make test (go mod tidy -diff). Both the host's
// build and the Windows build are listed: some imports are Windows-only.
func TestDirectDependencies(t *testing.T) {
	used := map[string]bool{}
	for _, goos := range []string{"", "windows"} {
		moduleOf := map[string]string{}
		for _, p := range goListOS(t, goos, "-deps", "-test", "./...") {
			if p.Module != nil {
				moduleOf[p.ImportPath] = p.Module.Path
			}
		}
		for _, p := range goListOS(t, goos, "./...") {
			for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
				if m := moduleOf[imp]; m != "" && m != module {
					used[m] = true
					if !allowedModules[m] {
						t.Errorf("%s imports %s from module %s, which is not among the design card's dependencies", p.ImportPath, imp, m)
					}
				}
			}
		}
	}
	for m := range allowedModules {
		if !used[m] {
			t.Errorf("allowedModules lists %s, which nothing imports", m)
		}
	}
	for _, p := range goList(t, "-deps", "./cmd/gosh") {
		for _, bad := range testOnlyModules {
			if p.Module != nil && p.Module.Path == bad {
				t.Errorf("the gosh binary links %s, a test-only dependency", p.ImportPath)
			}
		}
	}
}

// TestGofmt checks that every Go file is gofmt-formatted.
func TestGofmt(t *testing.T) {
	root := repoRoot(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, err := format.Source(src)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if !bytes.Equal(got, src) {
			t.Errorf("%s is not gofmt-formatted; run gofmt -w", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWindowsFileNames: no file or directory of the repository has a name
// Windows reserves for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with
// any extension): Git for Windows cannot check it out, and a Windows
// program that opens it opens the device instead (reading a file named
// aux.go under Wine waited on the serial port forever).
func TestWindowsFileNames(t *testing.T) {
	reserved := map[string]bool{"con": true, "prn": true, "aux": true, "nul": true}
	for i := 1; i <= 9; i++ {
		reserved["com"+string(rune('0'+i))] = true
		reserved["lpt"+string(rune('0'+i))] = true
	}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		base, _, _ := strings.Cut(d.Name(), ".")
		if reserved[strings.ToLower(strings.TrimRight(base, " "))] {
			t.Errorf("%s: a name Windows reserves for a device", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
