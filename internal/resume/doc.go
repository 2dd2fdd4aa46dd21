// Package resume keeps the client's saved sessions, so that a gosh client
// that exits or crashes can be restarted and pick up its session where it
// was: "gosh connect host" offers to resume a detached session it finds
// for that host, and "gosh connect --resume ID" resumes one by name.
//
// Each session is a small JSON file, <ID>.json, in the user's session
// directory ([Dir]), readable by the user alone (0600 in a 0700
// directory): the session's ID on its host (a gosh server's, which gosh
// sessions lists: the name the user knows, [Record.Name]; the file's own
// ID is local), the server's address, the session key, and the
// sequence-number reservation that keeps a resumed client from ever
// reusing a nonce. The key's nonce is (direction, sequence number), so a
// client restarted with the same key must never seal with a sequence
// number that it, or any earlier incarnation, may have used. The record
// holds a high-water mark S, "every sequence number below S may have
// been used": the client seals below S only once S is durably on disk
// (the file and its directory synced), and before it seals S itself it
// writes S + [Block] ([File.Reserve]). A resumed client starts at the
// saved S.
//
// A live client holds an exclusive advisory lock on the record's
// companion <ID>.lock file (flock(2) on Unix, LockFileEx on Windows), so
// two clients never hold one record, and a record whose lock is free is
// detached: its client is gone, and it may be offered for resuming. The
// lock is on a separate file because every update replaces the record
// file by rename, which would leave a lock on the record's old inode.
//
// This package is an I/O shell: it reads the clock, the file system and
// the process's identity directly.
package resume
