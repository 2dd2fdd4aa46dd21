//go:build (unix && !linux) || windows

package pty

import "errors"

// Canonical reports whether the terminal is in canonical (line) mode; it
// is known on Linux only, and elsewhere returns errors.ErrUnsupported.
func (p *Program) Canonical() (bool, error) { return false, errors.ErrUnsupported }
