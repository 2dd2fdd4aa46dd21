package linkem

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Profile is a named, two-way link: Up carries the client's packets to
// the server, Down the server's to the client.
type Profile struct {
	Name        string
	Description string
	Up, Down    Config
}

// Validate reports whether both directions are usable.
func (p Profile) Validate() error {
	if err := p.Up.Validate(); err != nil {
		return fmt.Errorf("%s up: %w", p.Name, err)
	}
	if err := p.Down.Validate(); err != nil {
		return fmt.Errorf("%s down: %w", p.Name, err)
	}
	return nil
}

// ErrUnknownProfile is wrapped by [LookupProfile]'s error.
var ErrUnknownProfile = errors.New("linkem: unknown profile")

// symmetric returns a profile with the same configuration both ways. The
// configuration's slices and pointers are shared, which is safe: models
// never change them.
func symmetric(name, desc string, c Config) Profile {
	return Profile{Name: name, Description: desc, Up: c, Down: c}
}

// Profiles returns the built-in profiles, a fresh copy each call:
//
//	lan         0.5 ms each way
//	evdo        the Mosh paper's Sprint EV-DO: 245 ms + 0–10 ms jitter each
//	            way (≈500 ms RTT), no reordering, no loss
//	loss50      the Mosh paper's "50% round-trip loss": 50 ms and 29.3%
//	            independent loss each way (1 − 0.707² ≈ 0.5)
//	cs244-3g    225 ms, 1% loss, 1 Mbit/s and a 100-packet queue each way
//	cs244-wifi  15 ms, 8% loss and 25 Mbit/s each way
//	cellular    Sprout's cellular model each way (σ 200, λ ≤ 1000 packets/s,
//	            outages of mean 1 s, λ restarting at 200 packets/s after
//	            one), 20 ms, a 200-packet queue
//	sprout      the same with Sprout's own restart next to 0: in an outage
//	            nearly half the time
//	outage      50 ms each way and a 5 s total outage every 30 s, the
//	            first 10 s in
func Profiles() []Profile {
	sprout := func(restart float64) Config {
		return Config{
			Delay:    20 * time.Millisecond,
			Cellular: &Cellular{RestartRate: restart},
			Queue:    200,
		}
	}
	return []Profile{
		symmetric("lan", "0.5 ms each way", Config{Delay: 500 * time.Microsecond}),
		symmetric("evdo", "Mosh paper's EV-DO: 245 ms + 0-10 ms jitter each way, ~500 ms RTT",
			Config{Delay: 245 * time.Millisecond, Jitter: 10 * time.Millisecond}),
		symmetric("loss50", "Mosh paper's 50% round-trip loss: 50 ms, 29.3% loss each way",
			Config{Delay: 50 * time.Millisecond, Loss: 0.293}),
		symmetric("cs244-3g", "225 ms, 1% loss, 1 Mbit/s, 100-packet queue each way",
			Config{Delay: 225 * time.Millisecond, Loss: 0.01, Rate: 1e6, Queue: 100}),
		symmetric("cs244-wifi", "15 ms, 8% loss, 25 Mbit/s each way",
			Config{Delay: 15 * time.Millisecond, Loss: 0.08, Rate: 25e6}),
		symmetric("cellular", "Sprout's cellular model restarting at 200 pkt/s after outages, 20 ms each way",
			sprout(200)),
		symmetric("sprout", "Sprout's cellular model as published (outages ~45% of the time), 20 ms each way",
			sprout(0)),
		symmetric("outage", "50 ms each way, a 5 s outage every 30 s from 10 s",
			Config{Delay: 50 * time.Millisecond, Outages: []Outage{{Start: 10 * time.Second, Duration: 5 * time.Second, Every: 30 * time.Second}}}),
	}
}

// ProfileNames returns the names of the built-in profiles, in the order
// of [Profiles].
func ProfileNames() []string {
	var names []string
	for _, p := range Profiles() {
		names = append(names, p.Name)
	}
	return names
}

// LookupProfile returns the built-in profile called name.
func LookupProfile(name string) (Profile, error) {
	for _, p := range Profiles() {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("%w %q (valid: %s)", ErrUnknownProfile, name, strings.Join(ProfileNames(), ", "))
}

// Custom returns a profile applying the same settings both ways: the
// command line's --delay, --jitter, --loss, --rate (bits per second, 0 for
// unlimited; see [ParseRate]) and --queue (packets, 0 for
// [DefaultQueue]). Check it with [Profile.Validate].
func Custom(delay, jitter time.Duration, loss, rate float64, queue int) Profile {
	c := Config{Delay: delay, Jitter: jitter, Loss: loss, Rate: rate, Queue: queue}
	desc := fmt.Sprintf("%v + 0-%v jitter, %.3g%% loss", delay, jitter, loss*100)
	if rate > 0 {
		q := queue
		if q == 0 {
			q = DefaultQueue
		}
		desc += fmt.Sprintf(", %s, %d-packet queue", FormatRate(rate), q)
	}
	return symmetric("custom", desc+" each way", c)
}
