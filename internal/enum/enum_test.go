package enum

import "testing"

type color int

const (
	red color = iota
	green
	blue
)

var colorNames = Names[color]{
	List:    []string{red: "red", green: "green", blue: "blue"},
	Aliases: map[string]color{"grey": green},
	Type:    "color",
	Bad:     "unknown color %[1]q: want one of %[2]s",
}

func TestString(t *testing.T) {
	tests := []struct {
		v    color
		want string
	}{{red, "red"}, {green, "green"}, {blue, "blue"}, {3, "color(3)"}, {-1, "color(-1)"}}
	for _, tc := range tests {
		if got := colorNames.String(tc.v); got != tc.want {
			t.Errorf("String(%d) = %q, want %q", int(tc.v), got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	folded := colorNames
	folded.Fold = true
	listless := colorNames
	listless.Bad = "bad color %[1]q (want red, green or blue)"
	tests := []struct {
		name    string
		n       Names[color]
		in      string
		want    color
		wantErr string
	}{
		{"name", colorNames, "blue", blue, ""},
		{"first", colorNames, "red", red, ""},
		{"alias", colorNames, "grey", green, ""},
		{"case matters", colorNames, "Blue", 0, `unknown color "Blue": want one of red, green, blue`},
		{"empty", colorNames, "", 0, `unknown color "": want one of red, green, blue`},
		{"folded", folded, "BLUE", blue, ""},
		{"folded alias", folded, "Grey", green, ""},
		{"folded unknown", folded, "pink", 0, `unknown color "pink": want one of red, green, blue`},
		{"format without the list", listless, "pink", 0, `bad color "pink" (want red, green or blue)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.n.Parse(tc.in)
			switch {
			case tc.wantErr == "" && (err != nil || got != tc.want):
				t.Errorf("Parse(%q) = %v, %v; want %v, nil", tc.in, got, err, tc.want)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr || got != 0):
				t.Errorf("Parse(%q) = %v, %v; want 0, %q", tc.in, got, err, tc.wantErr)
			}
		})
	}
}

func TestSet(t *testing.T) {
	c := blue
	if err := colorNames.Set(&c, "pink"); err == nil || c != blue {
		t.Errorf("Set(pink) = %v, left %v; want an error, blue", err, c)
	}
	if err := colorNames.Set(&c, "green"); err != nil || c != green {
		t.Errorf("Set(green) = %v, left %v; want nil, green", err, c)
	}
}

// FuzzParse checks that Parse takes exactly the names and aliases (in
// any case when folding), returns the zero value with its error, and
// that what it returns prints as a name it takes back.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"red", "grey", "Blue", "", "pink", "GREEN"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, fold bool) {
		n := colorNames
		n.Fold = fold
		v, err := n.Parse(s)
		if err != nil {
			if v != 0 {
				t.Errorf("Parse(%q) = %v with error %v, want the zero value", s, v, err)
			}
			return
		}
		back, err := n.Parse(n.String(v))
		if err != nil || back != v {
			t.Errorf("Parse(String(%v)) = %v, %v; want %v, nil", v, back, err, v)
		}
		if a, ok := n.Aliases[s]; !fold && n.String(v) != s && !(ok && a == v) {
			t.Errorf("Parse(%q) = %v, which is neither its name nor an alias of it", s, v)
		}
	})
}
