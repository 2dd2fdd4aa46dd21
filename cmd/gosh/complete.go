package main

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gosh-term/gosh/internal/bootstrap"
)

// completeHost completes the destination of gosh connect, gosh sessions
// and bare gosh HOST (their ValidArgsFunction): the host names of
// ssh_config's Host lines and of known_hosts (bootstrap.HostNames), after
// a user@ if one was typed, from the ssh_config that --ssh-config names,
// if the command has one. Words after the destination (a remote command)
// complete to nothing.
func completeHost(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	user, prefix := "", toComplete
	if i := strings.LastIndexByte(toComplete, '@'); i >= 0 {
		user, prefix = toComplete[:i+1], toComplete[i+1:]
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	configFile := ""
	if f := cmd.Flags().Lookup("ssh-config"); f != nil {
		configFile = f.Value.String()
	}
	var out []string
	for _, h := range bootstrap.HostNames(home, configFile) {
		if strings.HasPrefix(h, prefix) {
			out = append(out, user+h)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
