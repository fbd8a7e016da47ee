package ingest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Journal file names inside the spool directory: journal-<n>.jsonl, in
// the spool's record format.
const (
	journalPrefix = "journal-"
	journalSuffix = ".jsonl"
)

// journalRotate is the size at which the journal starts a new file, so a
// file whose records are all written can be removed while segments keep
// arriving. Tests lower it.
var journalRotate int64 = 1 << 20

// Journal makes a segment durable against a crash of the process before
// the writer holds it only in memory: Add appends it to a file before
// queueing it, the writer reports records it has stored (or spooled) with
// done, and files whose records are all done are truncated or removed.
// An append is one write(2) into the page cache, which survives kill -9
// of the process without an fsync (a power loss may still take the last
// records; the spool, which holds segments across database outages, is
// synced). On open, what a previous process left is moved into the spool.
//
// Appends are serialized with the queueing that follows them (see
// Writer.Add), so the journal's record order is the writer's order and
// a count of done records names a prefix of the journal.
type Journal struct {
	dir string
	// turn serializes an append with the queueing of its record.
	turn chan struct{}

	// mu guards the fields below; it is never held while blocking.
	mu     sync.Mutex
	f      *os.File
	n      int   // number of the current file
	size   int64 // bytes in the current file
	count  int   // records in the current file
	done   int   // done records not yet accounted to a removed file
	sealed []sealedFile
	buf    []byte
}

// sealedFile is a rotated journal file waiting for its records to be done.
type sealedFile struct {
	path  string
	count int
}

// openJournal recovers the records of journal files in dir, oldest first,
// removes those files and starts an empty journal.
func openJournal(dir string) (*Journal, []record, error) {
	files, err := journalFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	var recs []record
	last := 0
	for _, jf := range files {
		rs, err := readJournal(jf.path)
		if err != nil {
			return nil, nil, err
		}
		recs = append(recs, rs...)
		last = jf.n
	}
	j := &Journal{dir: dir, turn: make(chan struct{}, 1), n: last + 1}
	if err := j.openFile(); err != nil {
		return nil, nil, err
	}
	return j, recs, nil
}

// removeOld deletes the journal files recovered by openJournal, once
// their records are safe in the spool.
func (j *Journal) removeOld() error {
	files, err := journalFiles(j.dir)
	if err != nil {
		return err
	}
	for _, jf := range files {
		if jf.n < j.n {
			if err := os.Remove(jf.path); err != nil {
				return fmt.Errorf("remove journal: %w", err)
			}
		}
	}
	return nil
}

type journalFile struct {
	path string
	n    int
}

func journalFiles(dir string) ([]journalFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read spool dir: %w", err)
	}
	var files []journalFile
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, journalPrefix) || !strings.HasSuffix(name, journalSuffix) {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, journalPrefix), journalSuffix))
		if err != nil || n < 0 {
			continue
		}
		files = append(files, journalFile{path: filepath.Join(dir, name), n: n})
	}
	sort.Slice(files, func(a, b int) bool { return files[a].n < files[b].n })
	return files, nil
}

// readJournal reads a journal file's records; a torn last line (a crash
// mid-append) is left out.
func readJournal(path string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var recs []record
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read journal: %w", err)
		}
		var rec record
		if json.Unmarshal(line, &rec) != nil {
			return recs, nil
		}
		recs = append(recs, rec)
	}
}

func (j *Journal) openFile() error {
	path := filepath.Join(j.dir, journalPrefix+strconv.Itoa(j.n)+journalSuffix)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("open journal: %w", err)
	}
	j.f, j.size, j.count = f, 0, 0
	return nil
}

// lock takes the append turn, until ctx ends.
func (j *Journal) lock(ctx context.Context) error {
	select {
	case j.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (j *Journal) unlock() { <-j.turn }

// append writes rec at the end of the journal; the caller holds the turn.
func (j *Journal) append(rec record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.size >= journalRotate {
		if err := j.rotate(); err != nil {
			return err
		}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode journal record: %w", err)
	}
	j.buf = append(append(j.buf[:0], b...), '\n')
	if _, err := j.f.WriteAt(j.buf, j.size); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	j.size += int64(len(j.buf))
	j.count++
	return nil
}

// unappend takes back the last record appended, which was never queued;
// the caller holds the turn.
func (j *Journal) unappend() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.size -= int64(len(j.buf))
	j.count--
	_ = j.f.Truncate(j.size)
}

// rotate seals the current file and starts the next one.
func (j *Journal) rotate() error {
	if err := j.f.Close(); err != nil {
		return fmt.Errorf("close journal: %w", err)
	}
	j.sealed = append(j.sealed, sealedFile{path: j.f.Name(), count: j.count})
	j.n++
	return j.openFile()
}

// markDone records that the oldest n records not yet done are stored or
// spooled. Files all of whose records are done are removed; the current
// file is truncated when all of its records are.
func (j *Journal) markDone(n int) error {
	if n == 0 {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.done += n
	for len(j.sealed) > 0 && j.done >= j.sealed[0].count {
		j.done -= j.sealed[0].count
		if err := os.Remove(j.sealed[0].path); err != nil {
			return fmt.Errorf("remove journal: %w", err)
		}
		j.sealed = j.sealed[1:]
	}
	if len(j.sealed) == 0 && j.done >= j.count {
		j.done = 0
		j.count = 0
		j.size = 0
		if err := j.f.Truncate(0); err != nil {
			return fmt.Errorf("truncate journal: %w", err)
		}
	}
	return nil
}

// Bytes is the size of the journal files not yet removed.
func (j *Journal) Bytes() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := j.size
	for _, s := range j.sealed {
		if fi, err := os.Stat(s.path); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// close closes the current file; its records stay for the next start.
func (j *Journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.f.Close()
}
