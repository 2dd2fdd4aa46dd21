//go:build !linux

package linkem

import "time"

// preciseSleepWorks reports that this platform has nothing more precise
// than a Go timer: pipes wait on their timer alone.
const preciseSleepWorks = false

// preciseSleep is never called here.
func preciseSleep(d time.Duration) { time.Sleep(d) }
