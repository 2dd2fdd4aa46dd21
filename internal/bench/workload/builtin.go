package workload

import (
	"bytes"
	"embed"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
)

// builtinFS holds the built-in workloads, written by [Generate] (see
// TestBuiltinGenerated).
//
//go:embed builtin/*.json
var builtinFS embed.FS

// builtinNames lists the built-in workloads in the order [Builtin] returns
// them.
var builtinNames = []string{"shell", "vim", "python", "pager", "cmd", "traps"}

// Builtin returns the workloads shipped in the binary: shell, vim, python,
// pager, cmd and traps. Each call returns fresh copies.
func Builtin() []*Workload {
	ws := make([]*Workload, len(builtinNames))
	for i, name := range builtinNames {
		ws[i] = loadBuiltin(name)
	}
	return ws
}

// BuiltinNames returns the names of the built-in workloads, in the order
// of [Builtin], without parsing them.
func BuiltinNames() []string { return slices.Clone(builtinNames) }

// loadBuiltin parses the embedded workload name; it panics if it is
// missing or invalid, which the package's tests rule out.
func loadBuiltin(name string) *Workload {
	data, err := builtinFS.ReadFile("builtin/" + name + ".json")
	if err != nil {
		panic("workload: missing built-in workload " + name)
	}
	w, err := Parse(bytes.NewReader(data))
	if err != nil {
		panic(fmt.Sprintf("workload: built-in workload %s: %v", name, err))
	}
	return w
}

// Default is the name of the workload a typing run uses unless told
// otherwise: the shell workload of this system's shell (cmd on Windows,
// shell elsewhere).
func Default() string {
	if runtime.GOOS == "windows" {
		return "cmd"
	}
	return "shell"
}

// Lookup returns the built-in workload called name. The error, which wraps
// [ErrUnknown], lists the names there are.
func Lookup(name string) (*Workload, error) {
	if slices.Contains(builtinNames, name) {
		return loadBuiltin(name), nil
	}
	return nil, fmt.Errorf("%w %q (built-in workloads: %s)", ErrUnknown, name, strings.Join(builtinNames, ", "))
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
