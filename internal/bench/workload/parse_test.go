package workload

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     *Workload
	}{
		{
			name: "full",
			in: `{"name": "grep", "description": "d", "program": "grep", "files": {"a.txt": "alpha\n", "d/b": ""},
				"ready": "$", "keys": [{"key": "g", "gap_ms": 900}, {"key": "\r", "gap_ms": 180.5}, {"key": "\u001b[A", "gap_ms": 0}]}`,
			want: &Workload{Name: "grep", Description: "d", Program: "grep", Files: map[string]string{"a.txt": "alpha\n", "d/b": ""},
				Ready: "$", Keys: []Key{{"g", 900 * time.Millisecond}, {"\r", 180500 * time.Microsecond}, {"\x1b[A", 0}}},
		},
		{
			name: "requires",
			in:   `{"name": "t", "program": "vim", "requires": ["less", "seq"], "keys": [{"key": "v", "gap_ms": 1}]}`,
			want: &Workload{Name: "t", Program: "vim", Requires: []string{"less", "seq"}, Files: map[string]string{},
				Keys: []Key{{"v", time.Millisecond}}},
		},
		{
			name: "cmd shell",
			in:   `{"name": "dir", "shell": "cmd", "keys": [{"key": "d", "gap_ms": 1}]}`,
			want: &Workload{Name: "dir", Shell: ShellCmd, Files: map[string]string{}, Keys: []Key{{"d", time.Millisecond}}},
		},
		{
			name: "keys only",
			in:   ` [{"key": "l", "gap_ms": 180}, {"key": "\u007f", "gap_ms": 60000}]`,
			want: &Workload{Name: "custom", Files: map[string]string{}, Keys: []Key{{"l", 180 * time.Millisecond}, {"\x7f", time.Minute}}},
		},
		{
			name: "object without a name",
			in:   `{"keys": [{"key": "x", "gap_ms": 1}]}`,
			want: &Workload{Name: "custom", Files: map[string]string{}, Keys: []Key{{"x", time.Millisecond}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q) =\n%+v, want\n%+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	const key = `{"key": "x", "gap_ms": 1}`
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "  \n", "empty input"},
		{"not JSON", "keys: x", "want a JSON object or an array"},
		{"syntax", `{"keys": [`, "workload: unexpected EOF"},
		{"unknown field", `{"keys": [` + key + `], "gap": 3}`, `unknown field "gap"`},
		{"unknown key field", `[{"key": "x", "gap": 3}]`, `unknown field "gap"`},
		{"trailing data", `[` + key + `] []`, "data after the workload"},
		{"no keys", `{"name": "a"}`, "no keys"},
		{"empty keys", `[]`, "no keys"},
		{"key missing", `[{"gap_ms": 3}]`, `key 0 has no "key"`},
		{"gap missing", `[` + key + `, {"key": "y"}]`, `key 1 has no "gap_ms"`},
		{"negative gap", `[{"key": "x", "gap_ms": -5}]`, "key 0: gap_ms -5 is not between 0 and 60000"},
		{"gap too long", `[{"key": "x", "gap_ms": 60001}]`, "not between 0 and 60000"},
		{"empty key", `[{"key": "", "gap_ms": 5}]`, "key 0 is empty"},
		{"long key", `[{"key": "` + strings.Repeat("x", MaxKeyLen+1) + `", "gap_ms": 5}]`, "key 0 is longer than"},
		{"bad name", `{"name": "Big Name", "keys": [` + key + `]}`, `name "Big Name"`},
		{"absolute file", `{"files": {"/x.txt": ""}, "keys": [` + key + `]}`, `file name "/x.txt"`},
		{"escaping file", `{"files": {"../x": ""}, "keys": [` + key + `]}`, `file name "../x"`},
		{"unclean file", `{"files": {"a//b": ""}, "keys": [` + key + `]}`, `file name "a//b"`},
		{"backslash file", `{"files": {"a\\b": ""}, "keys": [` + key + `]}`, `file name "a\\b"`},
		{"program with a newline", `{"program": "vi\nrm", "keys": [` + key + `]}`, "control character"},
		{"required program with a newline", `{"requires": ["vi\nrm"], "keys": [` + key + `]}`, "control character"},
		{"empty required program", `{"requires": [""], "keys": [` + key + `]}`, "empty name in requires"},
		{"unknown shell", `{"shell": "powershell", "keys": [` + key + `]}`, `shell "powershell" is neither "sh" nor "cmd"`},
		{"wrong type", `{"keys": [{"key": 5, "gap_ms": 1}]}`, "cannot unmarshal number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Parse(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error containing %q", tc.in, w, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "workload: ") {
				t.Errorf("Parse(%q) error = %q, want \"workload: …%s…\"", tc.in, err, tc.want)
			}
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	in := `[{"key": "x", "gap_ms": 1}]` + strings.Repeat(" ", maxInput)
	if _, err := Parse(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Parse of %d bytes: error %v, want too large", len(in), err)
	}
}

// TestMarshalRoundTrip checks that every built-in workload, and one with
// awkward text, reads back equal.
func TestMarshalRoundTrip(t *testing.T) {
	odd := &Workload{Name: "odd", Shell: ShellSh, Description: "<&> \"quoted\" \u2028 \x7f", Program: "a b", Files: map[string]string{"z": "\x00\x1b", "a/b": "é"},
		Ready: "\t", Keys: []Key{{"\x7f", 1}, {"\U0001F600", 1234567}, {"<", time.Minute}}}
	for _, w := range append(Builtin(), odd) {
		data, err := w.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			t.Fatalf("%s: Parse(MarshalJSON()): %v\n%s", w.Name, err, data)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s: Parse(MarshalJSON()) = %+v, want %+v", w.Name, got, w)
		}
	}
}

// FuzzParse checks that Parse never panics, and that whatever it accepts
// survives MarshalJSON and Parse unchanged.
func FuzzParse(f *testing.F) {
	// Golden encodings, small so that the fuzzer runs fast: the start of
	// each built-in workload as MarshalJSON writes it.
	for _, w := range Builtin() {
		w.Keys = w.Keys[:8]
		data, err := w.MarshalJSON()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	for _, s := range []string{
		`[{"key": "l", "gap_ms": 180}]`,
		`{"name": "n", "files": {"a/b.txt": "x"}, "keys": [{"key": "\u001b[A", "gap_ms": 0.25}]}`,
		`{"keys": [{"key": "x", "gap_ms": 1e3}], "ready": "$"}`,
		`[{"key": "x", "gap_ms": -0}]`,
		`{"files": {"..": ""}, "keys": []}`,
		`[`, `{}`, `null`, `"x"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		w, err := Parse(strings.NewReader(in))
		if err != nil {
			return
		}
		data, err := w.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			t.Fatalf("Parse(MarshalJSON()): %v\n%s", err, data)
		}
		if !reflect.DeepEqual(again, w) {
			t.Fatalf("round trip changed the workload:\n%+v\n%+v", w, again)
		}
	})
}
