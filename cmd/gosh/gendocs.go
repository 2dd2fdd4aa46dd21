//go:build gendocs

package main

// The release's man pages and shell completions are generated from the
// command tree itself, at build time, by a gosh built with the gendocs
// tag (go run -tags gendocs ./cmd/gosh gendocs DIR): release binaries do
// not carry the generator.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/gosh-term/gosh/internal/buildinfo"
)

func init() { extraCommands = append(extraCommands, newGendocsCmd) }

// newGendocsCmd writes DIR/man/*.1, a page for every command but the
// hidden ones, and DIR/completions/gosh.{bash,zsh,fish,ps1}, replacing
// what those two directories held.
func newGendocsCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:    "gendocs DIR",
		Short:  "Write the man pages and shell completions into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			man, comp := filepath.Join(args[0], "man"), filepath.Join(args[0], "completions")
			for _, d := range []string{man, comp} {
				// Start empty: the release ships every file here, and a
				// page of a command that is gone must not be among them.
				if err := os.RemoveAll(d); err != nil {
					return err
				}
				if err := os.MkdirAll(d, 0o755); err != nil {
					return err
				}
			}
			root.DisableAutoGenTag = true
			header := &doc.GenManHeader{Title: "GOSH", Section: "1", Source: "gosh " + buildinfo.Version, Manual: "gosh manual"}
			if epoch, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
				date := time.Unix(epoch, 0).UTC() // reproducible: the commit's date
				header.Date = &date
			}
			if err := doc.GenManTree(root, header, man); err != nil {
				return fmt.Errorf("man pages: %w", err)
			}
			if err := addManEnvironment(filepath.Join(man, "gosh.1")); err != nil {
				return fmt.Errorf("man pages: %w", err)
			}
			for name, gen := range map[string]func(string) error{
				"gosh.bash": func(f string) error { return root.GenBashCompletionFileV2(f, true) },
				"gosh.zsh":  root.GenZshCompletionFile,
				"gosh.fish": func(f string) error { return root.GenFishCompletionFile(f, true) },
				"gosh.ps1":  root.GenPowerShellCompletionFileWithDesc,
			} {
				if err := gen(filepath.Join(comp, name)); err != nil {
					return fmt.Errorf("completions: %w", err)
				}
			}
			return nil
		},
	}
}
