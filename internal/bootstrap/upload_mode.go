package bootstrap

import "github.com/gosh-term/gosh/internal/enum"

// UploadMode is the self-upload policy (gosh connect --upload).
type UploadMode int

// The upload modes.
const (
	// UploadAuto uploads gosh only when the remote has no usable gosh
	// (the default).
	UploadAuto UploadMode = iota
	// UploadNever fails instead of uploading.
	UploadNever
	// UploadAlways ignores a gosh on the remote PATH and uses (or
	// uploads) this version.
	UploadAlways
)

var uploadModeNames = enum.Names[UploadMode]{
	List: []string{UploadAuto: "auto", UploadNever: "never", UploadAlways: "always"},
	Type: "mode",
	Bad:  "bad upload mode %[1]q (want auto, never or always)",
}

// String returns the mode's name: "auto", "never" or "always".
func (m UploadMode) String() string { return uploadModeNames.String(m) }

// Set parses a mode name into m (flag.Value).
func (m *UploadMode) Set(s string) error { return uploadModeNames.Set(m, s) }

// Type names the flag's value type in usage messages (pflag.Value).
func (m *UploadMode) Type() string { return uploadModeNames.Type }
