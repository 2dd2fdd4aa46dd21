package bench

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gosh-term/gosh/internal/linkem"
)

func TestZZGosh(t *testing.T) {
	name := os.Getenv("ZZ_LINK")
	if name == "" {
		t.Skip()
	}
	link, err := linkem.LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	size, _ := strconv.Atoi(os.Getenv("ZZ_SIZE"))
	typing := os.Getenv("ZZ_TYPING") != ""
	f := forwardGosh
	if os.Getenv("ZZ_SSH") != "" {
		f = forwardSSH
	}
	start := time.Now()
	r, err := f(context.Background(), link, size, 1, typing)
	t.Logf("%v err=%v MB/s=%.4f rt=%v echoes=%d p50=%v p95=%v", time.Since(start), err, r.MBps(), r.RoundTrip(), len(r.Echoes), r.Echo(0.5), r.Echo(0.95))
}
