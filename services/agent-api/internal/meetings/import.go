package meetings

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/errdefs"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/transcriptfile"
)

// ImportStore is what an import needs of the store beyond Store;
// *store.Store implements it.
type ImportStore interface {
	CreateImportedMeeting(ctx context.Context, tenantID string, m store.NewMeeting, key string) (store.Meeting, bool, error)
	EndMeetingAt(ctx context.Context, tenantID, id string, at time.Time) (store.Meeting, error)
}

// ImportRequest is one transcript file to import as a finished meeting.
type ImportRequest struct {
	// Format of the file; empty: from Name's extension, else sniffed.
	Format transcriptfile.Format
	// Name is the file's name, kept in the meeting's metadata.
	Name     string
	Title    string
	Language string
	// Project names the meeting's memory-bank project (metadata.project).
	Project string
	// StartedAt is when the meeting started (zero: now); the segments'
	// times are offsets from it and it ends at the last segment's end.
	StartedAt time.Time
	// Open returns the file from its start; an import reads it twice
	// (check, then ingest), one segment at a time.
	Open func() (io.ReadCloser, error)
}

// ImportResult is what an import created and stored.
type ImportResult struct {
	Meeting store.Meeting
	Format  transcriptfile.Format
	// Created: the meeting is new (false: the same file was imported
	// before and its meeting is returned).
	Created    bool
	Segments   int
	Inserted   int
	Duplicates int
}

// importSource is the source of imported transcript rows.
const importSource = "import"

// Import reads a transcript file and stores it as a meeting that has
// ended: the file is checked whole first (a malformed one is
// ErrInvalid naming its line, and creates nothing), then the meeting is
// created, or found when the same segments were imported before, the
// segments are ingested as a live meeting's are (so its context runs
// L1), and the meeting is ended, which runs the end-of-meeting pass and
// the Ended hook (the memory-bank update). Segment ids come from the
// file, or from each segment's content (transcriptfile.IDs), so a second
// import of the same file stores nothing new.
func (s *Service) Import(ctx context.Context, tenantID string, req ImportRequest) (ImportResult, error) {
	is, ok := s.Store.(ImportStore)
	if !ok {
		return ImportResult{}, errdefs.Newf(errdefs.ErrUnavailable, "this store cannot import meetings")
	}
	format, sum, n, lastEnd, err := s.checkImport(req)
	if err != nil {
		return ImportResult{}, err
	}
	md := map[string]any{"import": map[string]any{"format": string(format), "file_name": req.Name, "segments": n}}
	if req.Project != "" {
		md["project"] = req.Project
	}
	title := req.Title
	if title == "" {
		title = req.Name
	}
	m, created, err := is.CreateImportedMeeting(ctx, tenantID, store.NewMeeting{
		Title: title, Language: req.Language, Metadata: md, StartedAt: req.StartedAt,
	}, sum)
	if err != nil {
		return ImportResult{}, err
	}
	res := ImportResult{Meeting: m, Format: format, Created: created, Segments: n}
	if !created && m.Status == store.MeetingEnded && m.Utterances >= n {
		// Imported whole before: nothing to store.
		res.Duplicates = n
		return res, nil
	}
	if res.Inserted, res.Duplicates, err = s.ingestFile(ctx, tenantID, m.ID, req, format); err != nil {
		return res, err
	}
	if m.Status != store.MeetingEnded {
		end := m.StartedAt.Add(time.Duration(lastEnd) * time.Millisecond)
		if m, err = s.endAt(ctx, tenantID, m.ID, end, is); err != nil {
			return res, err
		}
	} else if m, err = s.Get(ctx, tenantID, m.ID); err != nil {
		return res, err
	}
	res.Meeting = m
	return res, nil
}

// openSegments opens the request's file as a segment reader.
func openSegments(req ImportRequest, format transcriptfile.Format) (transcriptfile.Reader, io.Closer, transcriptfile.Format, error) {
	f, err := req.Open()
	if err != nil {
		return nil, nil, "", err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if format == "" {
		format = transcriptfile.FormatOfName(req.Name)
	}
	if format == "" {
		head, _ := br.Peek(4 << 10)
		if format = transcriptfile.Sniff(head); format == "" {
			f.Close()
			return nil, nil, "", invalidf("cannot tell the transcript's format: name it (vtt, srt, jsonl or qmsum)")
		}
	}
	r, err := transcriptfile.Open(br, format)
	if err != nil {
		f.Close()
		return nil, nil, "", invalidf("%v", err)
	}
	return r, f, format, nil
}

// checkImport reads the file once: every segment must parse and be a
// valid utterance. It returns the format, the import key (SHA-256 of the
// segments' ids and content), the number of segments and the last end.
func (s *Service) checkImport(req ImportRequest) (transcriptfile.Format, string, int, int64, error) {
	r, c, format, err := openSegments(req, req.Format)
	if err != nil {
		return "", "", 0, 0, err
	}
	defer c.Close()
	ids := transcriptfile.NewIDs()
	h := sha256.New()
	h.Write([]byte(format))
	n := 0
	var lastEnd int64
	for {
		seg, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", "", 0, 0, readErr(err)
		}
		seg = ids.Assign(seg)
		u := toStoreUtterance(seg)
		if err := u.Validate(); err != nil {
			return "", "", 0, 0, invalidf("line %d: %s", seg.Line, unwrapInvalid(err))
		}
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], uint64(seg.StartMS))
		binary.BigEndian.PutUint64(b[8:], uint64(seg.EndMS))
		for _, f := range []string{seg.ID, seg.SpeakerID, seg.SpeakerName, seg.Text} {
			h.Write([]byte(f))
			h.Write([]byte{0})
		}
		h.Write(b[:])
		n++
		lastEnd = max(lastEnd, seg.EndMS)
	}
	if n == 0 {
		return "", "", 0, 0, invalidf("the transcript has no segments")
	}
	return format, hex.EncodeToString(h.Sum(nil)), n, lastEnd, nil
}

// readErr makes a reader's error an ErrInvalid naming the line, unless it
// is the request's own failure to read.
func readErr(err error) error {
	var le *transcriptfile.LineError
	if errors.As(err, &le) {
		return invalidf("%s", strings.ToValidUTF8(le.Error(), "\uFFFD"))
	}
	return fmt.Errorf("read transcript: %w", err)
}

func toStoreUtterance(seg transcriptfile.Segment) store.Utterance {
	return store.Utterance{
		SegmentID: seg.ID, SpeakerID: seg.SpeakerID, SpeakerName: seg.SpeakerName, Text: seg.Text,
		StartMS: seg.StartMS, EndMS: seg.EndMS, Confidence: float32(seg.Confidence), Source: importSource,
	}
}

// ingestFile reads the file again and ingests it MaxBatch segments at a
// time.
func (s *Service) ingestFile(ctx context.Context, tenantID, meetingID string, req ImportRequest, format transcriptfile.Format) (int, int, error) {
	r, c, _, err := openSegments(req, format)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	ids := transcriptfile.NewIDs()
	batch := make([]Utterance, 0, MaxBatch)
	var inserted, dups int
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		res, err := s.Ingest(ctx, tenantID, meetingID, batch)
		if err != nil {
			return err
		}
		inserted += res.Inserted
		dups += res.Duplicates
		batch = batch[:0]
		return nil
	}
	for {
		seg, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return inserted, dups, readErr(err)
		}
		seg = ids.Assign(seg)
		conf := float32(seg.Confidence)
		batch = append(batch, Utterance{
			SegmentID: seg.ID, SpeakerID: seg.SpeakerID, SpeakerName: seg.SpeakerName, Text: seg.Text,
			StartMS: seg.StartMS, EndMS: seg.EndMS, Confidence: &conf, Source: importSource,
		})
		if len(batch) == MaxBatch {
			if err := flush(); err != nil {
				return inserted, dups, err
			}
		}
	}
	return inserted, dups, flush()
}
