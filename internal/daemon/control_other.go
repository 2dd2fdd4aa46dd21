//go:build !unix

package daemon

import (
	"context"

	"github.com/gosh-term/gosh/internal/sspcrypto"
)

// ControlDir reports that there are no session daemons on this platform.
func ControlDir() (string, error) { return "", errNoServer }

// ListSessions reports that there are no session daemons on this
// platform.
func ListSessions(ctx context.Context) ([]Session, error) { return nil, errNoServer }

// AttachSession reports that there are no session daemons on this
// platform.
func AttachSession(ctx context.Context, id, from string) (Session, sspcrypto.Key, error) {
	return Session{}, sspcrypto.Key{}, errNoServer
}

// KillSession reports that there are no session daemons on this platform.
func KillSession(ctx context.Context, id string) (Session, error) { return Session{}, errNoServer }
