package netwatch

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// callback is the one callback NotifyUnicastIpAddressChange calls (Go
// callbacks are a process-wide, limited resource, so there is one, which
// reports to every watcher).
var (
	callbackOnce sync.Once
	callback     uintptr
	watchersMu   sync.Mutex
	watchers     = map[chan<- struct{}]bool{}
)

func changed(context uintptr, row uintptr, kind uint32) uintptr {
	watchersMu.Lock()
	defer watchersMu.Unlock()
	for c := range watchers {
		notify(c)
	}
	return 0
}

// watchOS asks Windows to report every change of a unicast address (an
// interface up or down, a new address after roaming).
func watchOS(ctx context.Context, out chan<- struct{}) error {
	callbackOnce.Do(func() { callback = windows.NewCallback(changed) })
	watchersMu.Lock()
	watchers[out] = true
	watchersMu.Unlock()
	var h windows.Handle
	if err := windows.NotifyUnicastIpAddressChange(windows.AF_UNSPEC, callback, unsafe.Pointer(nil), false, &h); err != nil {
		watchersMu.Lock()
		delete(watchers, out)
		watchersMu.Unlock()
		return fmt.Errorf("NotifyUnicastIpAddressChange: %w", err)
	}
	context.AfterFunc(ctx, func() {
		windows.CancelMibChangeNotify2(h)
		watchersMu.Lock()
		delete(watchers, out)
		watchersMu.Unlock()
	})
	return nil
}
