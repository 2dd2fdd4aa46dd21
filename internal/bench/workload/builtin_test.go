package workload

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite builtin/*.json from Generate")

// TestBuiltinGenerated checks that the committed workloads are exactly
// what Generate produces, so that their gaps can be traced to the typing
// model; -update rewrites them.
func TestBuiltinGenerated(t *testing.T) {
	gen := Generate()
	var names []string
	for _, w := range gen {
		names = append(names, w.Name)
		want, err := w.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		file := "builtin/" + w.Name + ".json"
		if *update {
			if err := os.WriteFile(filepath.FromSlash(file), want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := builtinFS.ReadFile(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what Generate produces; run go test -run TestBuiltinGenerated -update and review the diff", file)
		}
	}
	if !slices.Equal(names, builtinNames) {
		t.Errorf("Generate makes %v, want %v (builtinNames)", names, builtinNames)
	}
	files, _ := fs.Glob(builtinFS, "builtin/*.json")
	if len(files) != len(builtinNames) && !*update {
		t.Errorf("builtin/ holds %v, want one file for each of %v", files, builtinNames)
	}
}

// TestBuiltin checks the shape of each built-in workload.
func TestBuiltin(t *testing.T) {
	ws := Builtin()
	if len(ws) < 4 {
		t.Fatalf("Builtin() has %d workloads, want at least 4", len(ws))
	}
	names := BuiltinNames()
	for i, w := range ws {
		if i >= len(names) || names[i] != w.Name {
			t.Errorf("BuiltinNames() = %q, want the names of Builtin() in order (%q at %d)", names, w.Name, i)
			break
		}
	}
	for _, w := range ws {
		t.Run(w.Name, func(t *testing.T) {
			if err := w.Validate(); err != nil {
				t.Fatal(err)
			}
			if n := len(w.Keys); n < 250 || n > 400 {
				t.Errorf("%d keys, want 250 to 400", n)
			}
			for i, k := range w.Keys {
				if k.Gap < MinGap || k.Gap > MaxBuiltinGap || k.Gap%time.Millisecond != 0 {
					t.Errorf("key %d (%q): gap %v, want whole milliseconds within %v and %v", i, k.Key, k.Gap, MinGap, MaxBuiltinGap)
				}
			}
			if !strings.Contains(w.Description, "Dhakal") {
				t.Errorf("description %q does not say where the gaps come from", w.Description)
			}
			if w.Ready != "$" {
				t.Errorf("Ready = %q, want the prompt", w.Ready)
			}
			if wantShell := map[bool]string{true: ShellCmd}[w.Name == "cmd"]; w.Shell != wantShell {
				t.Errorf("Shell = %q, want %q", w.Shell, wantShell)
			}
			if w.Name != "shell" && w.Name != "cmd" && w.Program == "" {
				t.Errorf("no Program")
			}
			if w.Program != "" && !strings.Contains(keyText(w.Keys), w.Program) {
				t.Errorf("the keys never start %s", w.Program)
			}
			if last := w.Keys[len(w.Keys)-1].Key; last != "\r" && last != "q" {
				t.Errorf("last key %q does not return to the shell", last)
			}
		})
	}
}

// keyText is the keys of ks typed one after the other.
func keyText(ks []Key) string {
	var b strings.Builder
	for _, k := range ks {
		b.WriteString(k.Key)
	}
	return b.String()
}

func TestBuiltinReturnsCopies(t *testing.T) {
	a := Builtin()
	a[0].Keys[0].Key = "changed"
	a[0].Files["new"] = "x"
	b := Builtin()
	if b[0].Keys[0].Key == "changed" || b[0].Files["new"] != "" {
		t.Errorf("Builtin() returned a workload changed through an earlier result")
	}
}

func TestLookup(t *testing.T) {
	for _, name := range builtinNames {
		w, err := Lookup(name)
		if err != nil || w.Name != name {
			t.Errorf("Lookup(%q) = %v, %v; want the workload", name, w, err)
		}
	}
	_, err := Lookup("emacs")
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("Lookup(%q) error = %v, want ErrUnknown", "emacs", err)
	}
	for _, name := range builtinNames {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("Lookup error %q does not list %q", err, name)
		}
	}
}

// TestTypist checks the typist's gaps against the model: the mean and
// standard deviation of the reported inter-key interval, and the bounds.
func TestTypist(t *testing.T) {
	const n = 200_000
	ty := NewTypist(42)
	var sum, sum2 float64
	for range n {
		g := ty.Gap()
		if g < MinGap || g > MaxBuiltinGap {
			t.Fatalf("Gap() = %v, outside [%v, %v]", g, MinGap, MaxBuiltinGap)
		}
		ms := float64(g) / float64(time.Millisecond)
		sum += ms
		sum2 += ms * ms
	}
	mean := sum / n
	sd := math.Sqrt(sum2/n - mean*mean)
	if want := 238.66; math.Abs(mean-want) > 0.01*want {
		t.Errorf("mean gap %.2f ms, want %.2f ms ± 1%%", mean, want)
	}
	if want := 111.60; math.Abs(sd-want) > 0.03*want {
		t.Errorf("gap SD %.2f ms, want %.2f ms ± 3%%", sd, want)
	}
	for range 1000 {
		if d := ty.Think(); d < ThinkMin || d > ThinkMax {
			t.Fatalf("Think() = %v, outside [%v, %v]", d, ThinkMin, ThinkMax)
		}
	}
}

// TestTypistDeterministic checks that a seed fixes the gaps.
func TestTypistDeterministic(t *testing.T) {
	a, b, c := NewTypist(7), NewTypist(7), NewTypist(8)
	same, differ := true, false
	for range 100 {
		ga, gb, gc := a.Gap(), b.Gap(), c.Gap()
		same = same && ga == gb
		differ = differ || ga != gc
	}
	if !same || !differ {
		t.Errorf("same seed same gaps = %v, other seed other gaps = %v; want both", same, differ)
	}
}
