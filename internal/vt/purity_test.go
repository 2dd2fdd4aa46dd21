package vt_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPureCore enforces docs/style.md rule 1 for this package: no I/O imports, no
// clock, no goroutines in non-test code.
func TestPureCore(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	banned := map[string]bool{"os": true, "os/exec": true, "net": true, "syscall": true, "time": true, "sync": true}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); banned[p] {
				t.Errorf("%s imports %s", name, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s: go statement at %v", name, fset.Position(g.Pos()))
			}
			return true
		})
	}
}
