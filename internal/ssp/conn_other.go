//go:build !linux

package ssp

import "net"

// setSocketOptions does nothing outside Linux.
func setSocketOptions(*net.UDPConn) {}
