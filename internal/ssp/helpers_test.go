package ssp

import "github.com/gosh-term/gosh/internal/ssp/ssptest"

func newTestLog() *ssptest.Log { return ssptest.NewLog() }
