package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// fileJSON is the JSON form of a [Workload] (see the package doc).
type fileJSON struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Shell       string            `json:"shell,omitempty"`
	Program     string            `json:"program"`
	Requires    []string          `json:"requires,omitempty"`
	Files       map[string]string `json:"files"`
	Ready       string            `json:"ready"`
	Keys        []keyJSON         `json:"keys"`
}

// keyJSON is the JSON form of a [Key]; pointers tell absent from zero.
type keyJSON struct {
	Key   *string  `json:"key"`
	GapMS *float64 `json:"gap_ms"`
}

// Parse reads a workload in the JSON format of the package doc: an object,
// or an array of keys alone. A workload without a name is named "custom".
// The workload returned is valid ([Workload.Validate]).
func Parse(r io.Reader) (*Workload, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("workload: reading: %w", err)
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("workload: larger than %d bytes", maxInput)
	}
	var f fileJSON
	switch first := firstByte(data); first {
	case '{':
		err = decodeStrict(data, &f)
	case '[':
		err = decodeStrict(data, &f.Keys)
	case 0:
		return nil, errors.New("workload: empty input")
	default:
		return nil, fmt.Errorf("workload: want a JSON object or an array of keys, found %q", first)
	}
	if err != nil {
		return nil, err
	}
	return f.workload()
}

// firstByte returns the first byte of data that is not JSON white space,
// or 0.
func firstByte(data []byte) byte {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return 0
	}
	return data[0]
}

// decodeStrict decodes one JSON value into v, refusing unknown fields and
// anything after the value.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("workload: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("workload: data after the workload")
	}
	return nil
}

// workload converts and validates the decoded form.
func (f *fileJSON) workload() (*Workload, error) {
	w := &Workload{Name: f.Name, Description: f.Description, Shell: f.Shell, Program: f.Program, Requires: f.Requires, Files: f.Files, Ready: f.Ready,
		Keys: make([]Key, len(f.Keys))}
	if w.Name == "" {
		w.Name = defaultName
	}
	if w.Files == nil {
		w.Files = map[string]string{}
	}
	for i, k := range f.Keys {
		if k.Key == nil {
			return nil, fmt.Errorf("workload: key %d has no \"key\"", i)
		}
		if k.GapMS == nil {
			return nil, fmt.Errorf("workload: key %d has no \"gap_ms\"", i)
		}
		ms := *k.GapMS
		if !(ms >= 0 && ms <= float64(MaxGap/time.Millisecond)) {
			return nil, fmt.Errorf("workload: key %d: gap_ms %v is not between 0 and %d", i, ms, MaxGap/time.Millisecond)
		}
		w.Keys[i] = Key{Key: *k.Key, Gap: time.Duration(math.Round(ms * float64(time.Millisecond)))}
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// MarshalJSON encodes w in the format of the package doc, with one key per
// line, so that a workload file reads well and diffs well. [Parse] reads
// it back to an equal workload.
func (w *Workload) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	for _, f := range []struct{ name, value string }{
		{"name", w.Name}, {"description", w.Description}, {"program", w.Program},
	} {
		fmt.Fprintf(&b, "  %q: %s,\n", f.name, quote(f.value))
		if f.name == "description" && w.Shell != "" {
			fmt.Fprintf(&b, "  \"shell\": %s,\n", quote(w.Shell))
		}
	}
	if len(w.Requires) > 0 {
		b.WriteString(`  "requires": [`)
		for i, p := range w.Requires {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(p))
		}
		b.WriteString("],\n")
	}
	b.WriteString(`  "files": {`)
	for i, name := range sortedKeys(w.Files) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    %s: %s", quote(name), quote(w.Files[name]))
	}
	if len(w.Files) > 0 {
		b.WriteString("\n  ")
	}
	fmt.Fprintf(&b, "},\n  \"ready\": %s,\n  \"keys\": [", quote(w.Ready))
	for i, k := range w.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		ms := strconv.FormatFloat(float64(k.Gap)/float64(time.Millisecond), 'f', -1, 64)
		fmt.Fprintf(&b, "\n    {\"key\": %s, \"gap_ms\": %s}", quote(k.Key), ms)
	}
	b.WriteString("\n  ]\n}\n")
	return b.Bytes(), nil
}

// quote returns s as a JSON string, with HTML characters left alone and
// DEL escaped (it is invisible in an editor).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return string(bytes.ReplaceAll(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\x7f"), []byte(`\u007f`)))
}
