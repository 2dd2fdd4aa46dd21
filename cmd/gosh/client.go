package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// clientNames are the program names under which gosh is mosh-client: a
// link to gosh named so can be given to stock mosh's wrapper, which runs
// its client by path (mosh --client=/path/to/gosh-client).
var clientNames = []string{"mosh-client", "gosh-client"}

// asInvoked routes a gosh started under one of clientNames to gosh client.
func asInvoked(argv0 string, args []string) []string {
	name := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	for _, n := range clientNames {
		if name == n {
			return append([]string{"client"}, args...)
		}
	}
	return args
}

// newClientCmd is "gosh client": mosh-client's command line, so that
// stock mosh's wrapper can drive gosh as its client. It is gosh connect
// --direct with mosh-client's options: -# ARGS (the wrapper's command line,
// shown nowhere) and -c (print the terminal's colour count and exit).
func newClientCmd(runF func(*ConnectOptions) error) *cobra.Command {
	var shown string
	var colors bool
	cmd := &cobra.Command{
		Use:   "client [-# 'ARGS'] IP PORT | client -c",
		Short: "Run as mosh-client (key in MOSH_KEY), for stock mosh's wrapper",
		Long: `Run the client of a session like mosh-client: connect to the server at
IP PORT with the key in the MOSH_KEY environment variable (and
MOSH_PREDICTION_DISPLAY, MOSH_NO_TERM_INIT, MOSH_ESCAPE_KEY as mosh-client
reads them). "gosh client -c" prints the terminal's colour count.

Stock mosh's wrapper runs its client by path, without a shell: make a link
to gosh named gosh-client (or mosh-client) and give it that path:

    ln -s "$(command -v gosh)" ~/bin/gosh-client
    mosh --client=$HOME/bin/gosh-client host`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if colors {
				// For stock mosh's wrapper, which passes it to any server.
				_, err := fmt.Fprintln(cmd.OutOrStdout(), stockColors(terminalColors()))
				return err
			}
			connect := newConnectCmd(runF)
			connect.Use = "gosh client" // for its error messages
			connect.SetContext(cmd.Context())
			connect.SetIn(cmd.InOrStdin())
			connect.SetOut(cmd.OutOrStdout())
			connect.SetErr(cmd.ErrOrStderr())
			connect.SetFlagErrorFunc(flagError)
			connect.SilenceErrors, connect.SilenceUsage = true, true
			connect.SetArgs(append([]string{"--direct"}, args...))
			return connect.Execute()
		},
	}
	f := cmd.Flags()
	f.StringVarP(&shown, "args", "#", "", "the wrapper's command line (ignored)")
	f.BoolVarP(&colors, "colors", "c", false, "print the number of colours of the terminal and exit")
	return cmd
}
