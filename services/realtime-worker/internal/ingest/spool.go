package ingest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mithub/mithub/pkg/store"
)

// Spool file names inside the spool directory.
const (
	spoolFile  = "segments.jsonl"
	offsetFile = "offset"
)

// record is one spooled segment.
type record struct {
	TenantID  string          `json:"t"`
	MeetingID string          `json:"m"`
	U         store.Utterance `json:"u"`
	// size is the record's line length in the file.
	size int64
}

// Spool is an append-only file of segments waiting for the database, read
// back in order. The offset of the first unwritten record is committed to
// a second file, so a restart resumes where the last drain stopped; a
// record written twice is harmless because ingest is idempotent. Spool is
// not safe for concurrent use: the Writer's goroutine owns it.
type Spool struct {
	dir string
	max int64
	f   *os.File
	jl  *Journal
	// Recovered is the number of segments moved from the journal a
	// previous process left into the spool, and Lost those refused by
	// the spool's bound.
	Recovered, Lost int
	queue           []record // records not yet committed, oldest first
	// size is the file's length; committed the offset of queue[0].
	size, committed int64
}

// OpenSpool opens (creating) the spool in dir, bounded to maxBytes of
// pending records, and loads what a previous process left behind: its
// spool, then the segments of its journal (see Journal), which are
// appended to the spool so that the writer stores them first.
func OpenSpool(dir string, maxBytes int64) (*Spool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create spool dir: %w", err)
	}
	s := &Spool{dir: dir, max: maxBytes}
	if b, err := os.ReadFile(filepath.Join(dir, offsetFile)); err == nil {
		s.committed, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	f, err := os.OpenFile(filepath.Join(dir, spoolFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open spool: %w", err)
	}
	s.f = f
	if err := s.load(); err != nil {
		f.Close()
		return nil, err
	}
	if err := s.openJournal(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// openJournal starts the journal and moves the records a previous process
// left in it into the spool.
func (s *Spool) openJournal() error {
	jl, recs, err := openJournal(s.dir)
	if err != nil {
		return err
	}
	s.jl = jl
	if len(recs) > 0 {
		n, err := s.Append(recs)
		s.Recovered, s.Lost = n, len(recs)-n
		if err != nil && !errors.Is(err, ErrSpoolFull) {
			jl.close()
			return err
		}
	}
	if err := jl.removeOld(); err != nil {
		jl.close()
		return err
	}
	return nil
}

// Journal is where the writer journals segments before queueing them.
func (s *Spool) Journal() *Journal { return s.jl }

// load reads the records after the committed offset. A torn last line
// (a crash mid-append) is cut off.
func (s *Spool) load() error {
	end, err := s.f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("read spool: %w", err)
	}
	if s.committed > end || s.committed < 0 {
		s.committed = 0
	}
	if _, err := s.f.Seek(s.committed, io.SeekStart); err != nil {
		return fmt.Errorf("read spool: %w", err)
	}
	r := bufio.NewReaderSize(s.f, 64<<10)
	pos := s.committed
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break // a line without its newline is torn
		}
		if err != nil {
			return fmt.Errorf("read spool: %w", err)
		}
		var rec record
		if json.Unmarshal(line, &rec) != nil {
			break
		}
		rec.size = int64(len(line))
		s.queue = append(s.queue, rec)
		pos += rec.size
	}
	if err := s.f.Truncate(pos); err != nil {
		return fmt.Errorf("repair spool: %w", err)
	}
	s.size = pos
	return nil
}

// Len is the number of pending records.
func (s *Spool) Len() int { return len(s.queue) }

// Bytes is the size of the pending records.
func (s *Spool) Bytes() int64 { return s.size - s.committed }

// Append adds records at the end and syncs the file. Records that would
// push the spool past its bound are refused with ErrSpoolFull; the others
// are kept.
func (s *Spool) Append(recs []record) (int, error) {
	var buf []byte
	n := 0
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return n, fmt.Errorf("encode spool record: %w", err)
		}
		line = append(line, '\n')
		if s.Bytes()+int64(len(buf)+len(line)) > s.max {
			break
		}
		r.size = int64(len(line))
		buf = append(buf, line...)
		s.queue = append(s.queue, r)
		n++
	}
	if len(buf) > 0 {
		if _, err := s.f.WriteAt(buf, s.size); err != nil {
			s.queue = s.queue[:len(s.queue)-n]
			return 0, fmt.Errorf("write spool: %w", err)
		}
		if err := s.f.Sync(); err != nil {
			return n, fmt.Errorf("sync spool: %w", err)
		}
		s.size += int64(len(buf))
	}
	if n < len(recs) {
		return n, ErrSpoolFull
	}
	return n, nil
}

// Head returns up to max pending records at the front that belong to the
// same meeting.
func (s *Spool) Head(max int) []record {
	if len(s.queue) == 0 {
		return nil
	}
	n := 1
	for n < len(s.queue) && n < max && s.queue[n].MeetingID == s.queue[0].MeetingID &&
		s.queue[n].TenantID == s.queue[0].TenantID {
		n++
	}
	return s.queue[:n]
}

// Commit drops the first n records: they are in the database. An empty
// spool truncates its file.
func (s *Spool) Commit(n int) error {
	for _, r := range s.queue[:n] {
		s.committed += r.size
	}
	s.queue = s.queue[n:]
	if len(s.queue) == 0 {
		s.queue = nil
		if err := s.f.Truncate(0); err != nil {
			return fmt.Errorf("truncate spool: %w", err)
		}
		s.size, s.committed = 0, 0
	}
	return writeFileAtomic(filepath.Join(s.dir, offsetFile), []byte(strconv.FormatInt(s.committed, 10)))
}

// Close closes the files; pending records stay on disk for the next start.
func (s *Spool) Close() error {
	jerr := s.jl.close()
	return errors.Join(s.f.Close(), jerr)
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}
