package linkem

import (
	"syscall"
	"time"
)

// preciseSleepWorks reports that preciseSleep is more precise than a Go
// timer here.
const preciseSleepWorks = true

// preciseSleep blocks the calling thread in nanosleep for d, which the
// kernel times to tens of microseconds; the runtime gives the thread's
// processor to other goroutines meanwhile.
func preciseSleep(d time.Duration) {
	if d <= 0 {
		return
	}
	req := syscall.NsecToTimespec(int64(d))
	var left syscall.Timespec
	for syscall.Nanosleep(&req, &left) == syscall.EINTR {
		req = left
	}
}
