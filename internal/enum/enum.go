// Package enum spells small integer enumerations, the typed options of
// docs/style.md rule 9 (predict.Mode, netaddr.Family, ssp.Pacing...): a
// [Names] lists the names of a type's values once, and gives the bodies
// of the type's String, Set and Type methods, which make a pointer to it
// a flag value (pflag.Value). A type that is not an int underneath, or
// whose values are not 0, 1, 2..., is not for this package.
package enum

import (
	"fmt"
	"strings"
)

// Names spells the values of an enumeration T, which are 0, 1, 2...,
// the zero value being the default. Its methods are the bodies of T's:
//
//	var modeNames = enum.Names[Mode]{List: []string{Adaptive: "adaptive", Always: "always"}, ...}
//
//	func (m Mode) String() string      { return modeNames.String(m) }
//	func (m *Mode) Set(s string) error { return modeNames.Set(m, s) }
//	func (m *Mode) Type() string       { return modeNames.Type }
type Names[T ~int] struct {
	// List holds the values' names, indexed by value: a composite
	// literal keyed by the constants keeps each name beside its value.
	List []string
	// Aliases are further names that Parse takes, for the values they
	// map to; String never returns them.
	Aliases map[string]T
	// Fold makes Parse ignore case.
	Fold bool
	// Type is the value's name in usage messages (pflag.Value's Type).
	Type string
	// Bad is the format of Parse's error: %[1]q is the string that names
	// no value, %[2]s the names of List joined by ", ". The arguments are
	// indexed so that a format may leave the names out.
	Bad string
}

// String returns the name of v, or T's name and v's number for a value
// out of range ("Mode(7)").
func (n *Names[T]) String(v T) string {
	if v < 0 || int(v) >= len(n.List) {
		name := fmt.Sprintf("%T", v)
		return fmt.Sprintf("%s(%d)", name[strings.LastIndexByte(name, '.')+1:], int(v))
	}
	return n.List[v]
}

// Parse returns the value named s (in List or Aliases), or the zero
// value and an error made from Bad.
func (n *Names[T]) Parse(s string) (T, error) {
	for i, name := range n.List {
		if s == name || n.Fold && strings.EqualFold(s, name) {
			return T(i), nil
		}
	}
	for name, v := range n.Aliases {
		if s == name || n.Fold && strings.EqualFold(s, name) {
			return v, nil
		}
	}
	return 0, fmt.Errorf(n.Bad, s, strings.Join(n.List, ", "))
}

// Set sets *p to the value named s, as Parse parses it, leaving *p as it
// was on an error.
func (n *Names[T]) Set(p *T, s string) error {
	v, err := n.Parse(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}
