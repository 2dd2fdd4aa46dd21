package resume

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testKey is a well-formed session key: 16 zero bytes.
const testKey = "AAAAAAAAAAAAAAAAAAAAAA"

// testDir is a fresh session directory, through Dir with $XDG_STATE_HOME
// set to a temporary directory.
func testDir(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func newRecord(host string) Record {
	return Record{Host: host, Server: "192.0.2.1:60001", Key: testKey, Gosh: true, Command: "bash"}
}

func mustCreate(t *testing.T, dir string, r Record) *File {
	t.Helper()
	f, err := Create(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Release() })
	return f
}

// onDisk reads session id's record as a new client would.
func onDisk(t *testing.T, dir, id string) Record {
	t.Helper()
	r, err := readRecordFile(recordPath(dir, id), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func checkMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %04o, want %04o", filepath.Base(path), got, want)
	}
}

func TestDir(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		return // %LOCALAPPDATA%
	}
	if want := filepath.Join(state, "gosh", "sessions"); dir != want {
		t.Errorf("Dir() = %s, want %s", dir, want)
	}
	checkMode(t, dir, 0o700)

	// A directory left wider is tightened.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(); err != nil {
		t.Fatal(err)
	}
	checkMode(t, dir, 0o700)

	// A relative $XDG_STATE_HOME is ignored, for $HOME/.local/state.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "relative")
	dir, err = Dir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".local", "state", "gosh", "sessions"); dir != want {
		t.Errorf("Dir() = %s, want %s", dir, want)
	}
	checkMode(t, dir, 0o700)

	// A symbolic link is refused.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	real := t.TempDir()
	os.MkdirAll(filepath.Join(os.Getenv("XDG_STATE_HOME"), "gosh"), 0o700)
	if err := os.Symlink(real, filepath.Join(os.Getenv("XDG_STATE_HOME"), "gosh", "sessions")); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(); err == nil {
		t.Error("Dir accepted a symbolic link")
	}
}

func TestCreate(t *testing.T) {
	dir := testDir(t)
	f := mustCreate(t, dir, newRecord("user@host"))
	r := f.Record()
	if !validID(r.ID) {
		t.Fatalf("ID %q", r.ID)
	}
	if r.PID != os.Getpid() || r.Started.IsZero() || r.Updated.IsZero() || r.Epoch != 0 {
		t.Errorf("created %+v", r)
	}
	checkMode(t, recordPath(dir, r.ID), 0o600)
	checkMode(t, lockPath(dir, r.ID), 0o600)
	got := onDisk(t, dir, r.ID)
	if got.Host != "user@host" || got.Key != testKey || got.PID != os.Getpid() || !got.Gosh || got.Command != "bash" {
		t.Errorf("on disk %+v", got)
	}
	if _, err := os.Lstat(tempPath(dir, r.ID)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file left: %v", err)
	}

	// The same ID again, held or not, is refused.
	dup := newRecord("other")
	dup.ID = r.ID
	if _, err := Create(dir, dup); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create of a held ID: %v, want fs.ErrExist", err)
	}
	if err := f.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(dir, dup); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create of a released ID: %v, want fs.ErrExist", err)
	}

	// Malformed records are refused.
	for _, bad := range []Record{
		{Host: "h", Server: "192.0.2.1:60001", Key: "short"},
		{Host: "h", Server: "nowhere", Key: testKey},
		{Host: "", Server: "192.0.2.1:60001", Key: testKey},
		{ID: "../../x", Host: "h", Server: "192.0.2.1:60001", Key: testKey},
		{Session: "../../x", Host: "h", Server: "192.0.2.1:60001", Key: testKey},
		{Session: "78FEDFFA", Host: "h", Server: "192.0.2.1:60001", Key: testKey},
	} {
		if f, err := Create(dir, bad); err == nil {
			f.Remove()
			t.Errorf("Create(%+v) succeeded", bad)
		}
	}
}

func TestReserve(t *testing.T) {
	dir := testDir(t)
	f := mustCreate(t, dir, newRecord("host"))
	id := f.Record().ID
	if got := onDisk(t, dir, id).Seq; got != 0 {
		t.Fatalf("new record reserves %d", got)
	}
	steps := []struct{ next, want uint64 }{
		{0, Block},
		{1, Block},
		{Block - 1, Block},
		{Block, 2 * Block},
		{2*Block + 5, 3*Block + 5},
		{7, 3*Block + 5}, // never goes back
	}
	for _, s := range steps {
		limit, err := f.Reserve(s.next)
		if err != nil {
			t.Fatal(err)
		}
		if limit != s.want || f.Record().Seq != s.want {
			t.Errorf("Reserve(%d) = %d (record %d), want %d", s.next, limit, f.Record().Seq, s.want)
		}
		// Durable: what a new client would read.
		if got := onDisk(t, dir, id).Seq; got != s.want {
			t.Errorf("after Reserve(%d), file has Seq %d, want %d", s.next, got, s.want)
		}
	}
	if _, err := f.Reserve(maxSeq - Block + 1); !errors.Is(err, ErrExhausted) {
		t.Errorf("Reserve near 2^63: %v", err)
	}
	if _, err := f.Reserve(maxSeq - Block); err != nil {
		t.Errorf("Reserve of the last block: %v", err)
	}
}

func TestScrollLazy(t *testing.T) {
	dir := testDir(t)
	f := mustCreate(t, dir, newRecord("host"))
	id := f.Record().ID
	f.SetScroll(42)
	if f.Record().Scroll != 42 {
		t.Error("Record does not show the scroll count")
	}
	if got := onDisk(t, dir, id).Scroll; got != 0 {
		t.Errorf("SetScroll wrote at once: %d", got)
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := onDisk(t, dir, id).Scroll; got != 42 {
		t.Errorf("after Flush: %d", got)
	}
	f.SetScroll(43)
	if _, err := f.Reserve(0); err != nil {
		t.Fatal(err)
	}
	if got := onDisk(t, dir, id).Scroll; got != 43 {
		t.Errorf("after Reserve: %d", got)
	}
	f.SetScroll(44)
	if err := f.Release(); err != nil {
		t.Fatal(err)
	}
	if got := onDisk(t, dir, id); got.Scroll != 44 || got.PID != 0 {
		t.Errorf("after Release: scroll %d, PID %d", got.Scroll, got.PID)
	}
}

func TestClaim(t *testing.T) {
	dir := testDir(t)
	f := mustCreate(t, dir, newRecord("host"))
	id := f.Record().ID
	if _, err := f.Reserve(100); err != nil {
		t.Fatal(err)
	}
	if err := f.Release(); err != nil {
		t.Fatal(err)
	}
	if r := onDisk(t, dir, id); r.PID != 0 || r.Seq != 100+Block {
		t.Fatalf("released: %+v", r)
	}
	seq := uint64(100 + Block)
	for epoch := uint64(1); epoch <= 2; epoch++ {
		g, err := Claim(dir, id)
		if err != nil {
			t.Fatal(err)
		}
		r := g.Record()
		if r.Epoch != epoch || r.PID != os.Getpid() {
			t.Errorf("claim %d: epoch %d, PID %d", epoch, r.Epoch, r.PID)
		}
		// The resumed client starts at the saved reservation.
		if r.Seq != seq {
			t.Errorf("claim %d: Seq %d, want %d", epoch, r.Seq, seq)
		}
		if d := onDisk(t, dir, id); d.Epoch != epoch || d.PID != os.Getpid() {
			t.Errorf("claim %d on disk: epoch %d, PID %d", epoch, d.Epoch, d.PID)
		}
		if limit, err := g.Reserve(r.Seq); err != nil || limit != seq+Block {
			t.Errorf("claim %d: Reserve(%d) = %d, %v", epoch, r.Seq, limit, err)
		}
		seq += Block
		if err := g.Release(); err != nil {
			t.Fatal(err)
		}
		if err := g.Release(); !errors.Is(err, ErrClosed) {
			t.Errorf("second Release: %v", err)
		}
		if _, err := g.Reserve(1 << 40); !errors.Is(err, ErrClosed) {
			t.Errorf("Reserve after Release: %v", err)
		}
	}

	// Unknown and malformed IDs, leaving nothing behind.
	for _, bad := range []string{"0badc0de", "../../../etc", "", "ABCDEF01"} {
		if _, err := Claim(dir, bad); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Claim(%q): %v, want fs.ErrNotExist", bad, err)
		}
	}
	if names := sessionFiles(dir, "0badc0de"); len(names) != 0 {
		t.Errorf("Claim of an unknown ID left %v", names)
	}
}

func TestLockSameProcess(t *testing.T) {
	dir := testDir(t)
	f := mustCreate(t, dir, newRecord("host"))
	id := f.Record().ID
	_, err := Claim(dir, id)
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("Claim of a held session: %v, want ErrInUse", err)
	}
	if want := fmt.Sprintf("session %s is in use by process %d", id, os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if recs, _ := List(dir, "host"); len(recs) != 1 || recs[0].Detached {
		t.Errorf("held session listed as %+v", recs)
	}
	// The failed Claim changed nothing.
	if r := onDisk(t, dir, id); r.Epoch != 0 || r.PID != os.Getpid() {
		t.Errorf("after a refused Claim: %+v", r)
	}
	if err := f.Release(); err != nil {
		t.Fatal(err)
	}
	if recs, _ := List(dir, "host"); len(recs) != 1 || !recs[0].Detached {
		t.Errorf("released session listed as %+v", recs)
	}
	g, err := Claim(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if _, err := Claim(dir, id); !errors.Is(err, ErrInUse) {
		t.Errorf("second Claim: %v, want ErrInUse", err)
	}
}

// Environment of the child process of TestLockChildProcess.
const (
	helperDirEnv = "GOSH_RESUME_HELPER_DIR"
	helperIDEnv  = "GOSH_RESUME_HELPER_ID"
)

// TestHelperHold is not a test: re-executed by TestLockChildProcess, it
// claims the session, says "held", and holds it until its stdin ends,
// then exits without letting go, as a client that crashed.
func TestHelperHold(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("helper process for TestLockChildProcess")
	}
	f, err := Claim(dir, os.Getenv(helperIDEnv))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	_ = f
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

func TestLockChildProcess(t *testing.T) {
	dir := testDir(t)
	f := mustCreate(t, dir, newRecord("host"))
	id := f.Record().ID
	if err := f.Release(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperHold$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperDirEnv+"="+dir, helperIDEnv+"="+id)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}

	_, err = Claim(dir, id)
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("Claim of a session held by a child: %v, want ErrInUse", err)
	}
	if want := "in use by process " + strconv.Itoa(cmd.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if recs, _ := List(dir, ""); len(recs) != 1 || recs[0].Detached {
		t.Errorf("session held by a child listed as %+v", recs)
	}

	// The child exits without Release: the system lets go of its lock.
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	recs, _ := List(dir, "")
	if len(recs) != 1 || !recs[0].Detached || recs[0].PID != cmd.Process.Pid {
		t.Fatalf("session of an exited child listed as %+v", recs)
	}
	g, err := Claim(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	if r := g.Record(); r.Epoch != 2 || r.PID != os.Getpid() {
		t.Errorf("claimed from an exited child: %+v", r)
	}
}

func TestList(t *testing.T) {
	dir := testDir(t)
	a1 := mustCreate(t, dir, newRecord("a"))
	time.Sleep(10 * time.Millisecond) // distinct Updated times
	mustCreate(t, dir, newRecord("b"))
	time.Sleep(10 * time.Millisecond)
	a2 := mustCreate(t, dir, newRecord("a"))
	if err := a1.Release(); err != nil {
		t.Fatal(err)
	}
	// a1 is now the newest, and detached.

	recs, err := List(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != a1.Record().ID || recs[1].ID != a2.Record().ID {
		t.Fatalf("List(a) = %v", recs)
	}
	if !recs[0].Detached || recs[1].Detached {
		t.Errorf("Detached: %v %v, want true false", recs[0].Detached, recs[1].Detached)
	}
	if recs, _ := List(dir, ""); len(recs) != 3 {
		t.Errorf("List() = %v", recs)
	}
	if recs, _ := List(dir, "c"); len(recs) != 0 {
		t.Errorf("List(c) = %v", recs)
	}
	if recs, err := List(filepath.Join(dir, "missing"), ""); err != nil || len(recs) != 0 {
		t.Errorf("List of a missing directory = %v, %v", recs, err)
	}
}

func TestListSkips(t *testing.T) {
	dir := testDir(t)
	good := mustCreate(t, dir, newRecord("host"))
	valid, err := os.ReadFile(recordPath(dir, good.Record().ID))
	if err != nil {
		t.Fatal(err)
	}
	var other Record
	json.Unmarshal(valid, &other)
	other.ID = "0000beef"
	otherJSON, _ := json.Marshal(other)

	write := func(name string, b []byte, mode fs.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("00000001.json", []byte("{not json"), 0o600)         // corrupt
	write("00000002.json", nil, 0o600)                         // empty
	write("00000003.json", valid, 0o600)                       // holds another ID
	write("notanid.json", otherJSON, 0o600)                    // not a session name
	write("0000beef.json.tmp", otherJSON, 0o600)               // not a record
	write("00000004.json", []byte(`{"id":"00000004"}`), 0o600) // incomplete
	if runtime.GOOS != "windows" {
		write("0000beef.json", otherJSON, 0o644) // others can read the key
		if err := os.Symlink(recordPath(dir, good.Record().ID), filepath.Join(dir, "0000cafe.json")); err != nil {
			t.Fatal(err)
		}
	}

	recs, err := List(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].ID != good.Record().ID {
		t.Errorf("List = %v, want only %s", recs, good.Record().ID)
	}
	if runtime.GOOS != "windows" {
		if _, err := Claim(dir, "0000beef"); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "mode 0644") {
			t.Errorf("Claim of a 0644 record: %v, want ErrUnsafe", err)
		}
		if _, err := Claim(dir, "0000cafe"); !errors.Is(err, ErrUnsafe) {
			t.Errorf("Claim of a symbolic link: %v, want ErrUnsafe", err)
		}
	}
	if _, err := Claim(dir, "00000001"); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("Claim of a corrupt record: %v", err)
	}
}

func TestRemove(t *testing.T) {
	dir := testDir(t)
	f := mustCreate(t, dir, newRecord("host"))
	id := f.Record().ID
	if err := f.Remove(); err != nil {
		t.Fatal(err)
	}
	if names := sessionFiles(dir, id); len(names) != 0 {
		t.Errorf("Remove left %v", names)
	}
	if err := f.Remove(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Remove: %v", err)
	}
	if _, err := Claim(dir, id); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Claim of a removed session: %v", err)
	}
}

func TestPrune(t *testing.T) {
	dir := testDir(t)
	const maxAge = 30 * 24 * time.Hour
	old := time.Now().Add(-maxAge - time.Hour)

	// age rewrites session id's record as last updated at old.
	age := func(id string) {
		t.Helper()
		r := onDisk(t, dir, id)
		r.Updated = old
		b, _ := r.marshal()
		if err := writeFileSync(dir, id, b); err != nil {
			t.Fatal(err)
		}
	}
	stale := mustCreate(t, dir, newRecord("host"))
	staleID := stale.Record().ID
	stale.Release()
	age(staleID)

	held := mustCreate(t, dir, newRecord("host")) // old, but its client lives
	age(held.Record().ID)

	fresh := mustCreate(t, dir, newRecord("host"))
	fresh.Release()

	// Leftovers: an old corrupt record, an old temporary file, an old
	// lock file without a record, and a recent corrupt record.
	for _, name := range []string{"00000001.json", "00000002.json.tmp", "00000003.lock", "00000004.json"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("junk"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name != "00000004.json" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}

	n, err := Prune(dir, maxAge)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("Prune deleted %d sessions, want 4", n)
	}
	ents, _ := os.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	want := []string{"00000004.json"}
	for _, f := range []*File{held, fresh} {
		id := f.Record().ID
		want = append(want, id+".json", id+".lock")
	}
	if strings.Join(sorted(left), " ") != strings.Join(sorted(want), " ") {
		t.Errorf("after Prune: %v, want %v", left, want)
	}
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// sessionFiles lists which of session id's files exist in dir.
func sessionFiles(dir, id string) []string {
	var names []string
	for _, p := range []string{recordPath(dir, id), tempPath(dir, id), lockPath(dir, id)} {
		if _, err := os.Lstat(p); err == nil {
			names = append(names, filepath.Base(p))
		}
	}
	return names
}

func TestConcurrentUse(t *testing.T) {
	dir := testDir(t)
	f := mustCreate(t, dir, newRecord("host"))
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				f.SetScroll(uint64(i*100 + j))
				if _, err := f.Reserve(uint64(j) * Block); err != nil {
					t.Error(err)
					return
				}
				List(dir, "")
			}
		}()
	}
	wg.Wait()
	if got := onDisk(t, dir, f.Record().ID).Seq; got != 50*Block {
		t.Errorf("Seq %d, want %d", got, 50*Block)
	}
}

// TestSessionName: a record of a gosh server's session is known by the
// server's session ID, which it keeps on disk; a record without one (a
// stock mosh-server's, or one an earlier gosh wrote, which has no
// "session" field) by its own, and it still loads and can be claimed.
func TestSessionName(t *testing.T) {
	dir := testDir(t)
	r := newRecord("user@host")
	r.Session = "78fedffa"
	f := mustCreate(t, dir, r)
	id := f.Record().ID
	if got := onDisk(t, dir, id); got.Session != "78fedffa" || got.Name() != "78fedffa" || got.ID == "78fedffa" {
		t.Errorf("on disk: session %q, name %q, id %q; want 78fedffa, 78fedffa and the record's own", got.Session, got.Name(), got.ID)
	}
	if s := fmt.Sprint(f.Record()); !strings.Contains(s, "session 78fedffa on user@host") {
		t.Errorf("String() = %q", s)
	}

	// A record as the previous version wrote it.
	const old = `{"id": "3fa2c1d0", "host": "user@host", "server": "192.0.2.1:60001", "key": "AAAAAAAAAAAAAAAAAAAAAA", "gosh": true,` +
		` "epoch": 1, "seq": 8192, "scroll": 12, "pid": 0, "started": "2025-01-02T03:04:05Z", "updated": "2025-01-02T03:09:05Z"}`
	if err := os.WriteFile(recordPath(dir, "3fa2c1d0"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, err := List(dir, "user@host")
	if err != nil || len(recs) != 2 {
		t.Fatalf("List = %v, %v; want the two records", recs, err)
	}
	var names []string
	for _, r := range recs {
		names = append(names, r.Name())
	}
	if got := strings.Join(sorted(names), " "); got != "3fa2c1d0 78fedffa" {
		t.Errorf("names %q, want 3fa2c1d0 78fedffa", got)
	}
	c, err := Claim(dir, "3fa2c1d0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if got := c.Record(); got.Session != "" || got.Name() != "3fa2c1d0" || got.Epoch != 2 || got.Seq != 8192 || got.Scroll != 12 {
		t.Errorf("claimed old record %+v", got)
	}
}

// TestSetSession: a record made without the server's session ID (gosh
// connect --direct) takes it when the server tells it, keeps it on disk
// and is known by it from then on; what is not a session ID is refused.
func TestSetSession(t *testing.T) {
	dir := testDir(t)
	f := mustCreate(t, dir, newRecord("192.0.2.1"))
	id := f.Record().ID
	for _, bad := range []string{"", "0123ABCD", "0123abc", "../0123a", "0123abcde"} {
		if err := f.SetSession(bad); err == nil {
			t.Errorf("SetSession(%q) = nil, want an error", bad)
		}
	}
	if err := f.SetSession("0123abcd"); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := onDisk(t, dir, id); got.Session != "0123abcd" || got.Name() != "0123abcd" {
		t.Errorf("on disk: session %q, name %q; want 0123abcd", got.Session, got.Name())
	}
}

func TestRecordStringHidesKey(t *testing.T) {
	r := newRecord("host")
	r.Key = "c2VjcmV0c2VjcmV0c2VjcmV0"[:22]
	for _, s := range []string{fmt.Sprint(r), fmt.Sprintf("%v %+v %s", r, r, r), fmt.Sprint([]Record{r})} {
		if strings.Contains(s, r.Key) {
			t.Errorf("%q shows the key", s)
		}
	}
}

func TestAskResume(t *testing.T) {
	r := newRecord("user@host")
	r.ID, r.Session = "3fa2c1d0", "78fedffa" // the offer names the server's ID
	r.Updated = time.Now().Add(-5*time.Minute - time.Second)
	tests := []struct {
		in      string
		want    bool
		err     error
		prompts int
		rest    string
	}{
		{"\n", true, nil, 1, ""},
		{"y\nls\n", true, nil, 1, "ls\n"},
		{"YES\r\n", true, nil, 1, ""},
		{"n\n", false, nil, 1, ""},
		{" No \nmore", false, nil, 1, "more"},
		{"maybe\nn\n", false, nil, 2, ""},
		{"a\nb\nc\nd\n", false, nil, 3, "d\n"},
		{"y", true, nil, 1, ""}, // the end of input ends the answer
		{"", false, io.EOF, 1, ""},
		{"what", false, io.EOF, 1, ""},
	}
	for _, tt := range tests {
		in := strings.NewReader(tt.in)
		var out strings.Builder
		got, err := AskResume(in, &out, r)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("answer %q: %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
		const q = "gosh: resume session 78fedffa on user@host (detached 5m ago)? [Y/n] "
		if want := strings.Repeat(q, tt.prompts); out.String() != want {
			t.Errorf("answer %q: asked %q, want %q", tt.in, out.String(), want)
		}
		if rest, _ := io.ReadAll(in); string(rest) != tt.rest {
			t.Errorf("answer %q: left %q, want %q", tt.in, rest, tt.rest)
		}
	}

	r.PID = 1234
	r.Host = "evil\x1b]0;x\ahost"
	var out strings.Builder
	AskResume(strings.NewReader("\n"), &out, r)
	if want := "on evil?]0;x?host (last active 5m ago)"; !strings.Contains(out.String(), want) {
		t.Errorf("asked %q, want %q in it", out.String(), want)
	}
}

func TestAgo(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Hour:           "just now",
		30 * time.Second:     "just now",
		5 * time.Minute:      "5m ago",
		3 * time.Hour:        "3h ago",
		47 * time.Hour:       "47h ago",
		72 * time.Hour:       "3d ago",
		400 * 24 * time.Hour: "400d ago",
	} {
		if got := ago(d); got != want {
			t.Errorf("ago(%v) = %q, want %q", d, got, want)
		}
	}
}

func FuzzRecord(f *testing.F) {
	f.Add([]byte(`{"id":"3fa2c1d0","host":"user@host","server":"192.0.2.1:60001","key":"AAAAAAAAAAAAAAAAAAAAAA","gosh":true,"epoch":1,"seq":4096,"pid":0}`))
	f.Add([]byte(`{"id":"3fa2c1d0","session":"78fedffa","host":"h","server":"192.0.2.1:60001","key":"AAAAAAAAAAAAAAAAAAAAAA"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRecord(b)
		if err != nil {
			return
		}
		// What parses, round-trips.
		enc, err := r.marshal()
		if err != nil {
			t.Fatal(err)
		}
		r2, err := parseRecord(enc)
		if err != nil {
			t.Fatalf("re-parsing %s: %v", enc, err)
		}
		if r2.String() != r.String() || r2.Key != r.Key || r2.Seq != r.Seq || !r2.Updated.Equal(r.Updated) || r2.Session != r.Session {
			t.Fatalf("round trip: %+v != %+v", r2, r)
		}
	})
}
