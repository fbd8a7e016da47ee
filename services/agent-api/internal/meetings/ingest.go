package meetings

import (
	"context"
	"strings"

	"github.com/mithub/mithub/pkg/store"
)

// MaxBatch caps the utterances of one Ingest.
const MaxBatch = 1000

// Utterance is one final transcript segment to ingest. A nil Confidence
// is 1; an empty Source is "api".
type Utterance struct {
	SegmentID   string
	SpeakerID   string
	SpeakerName string
	Text        string
	StartMS     int64
	EndMS       int64
	Confidence  *float32
	Source      string
}

// IngestResult is what an Ingest stored and applied.
type IngestResult struct {
	Inserted   int
	Duplicates int
	// Cursor is the highest seq applied to the meeting's context.
	Cursor int
}

// Ingest stores a batch of final utterances, then applies the new rows to
// the cached context. Postgres first: a crash between the two loses
// nothing, the next sync or rebuild reads the rows back. A nil batch and
// an empty one are different validation errors.
func (s *Service) Ingest(ctx context.Context, tenantID, meetingID string, batch []Utterance) (IngestResult, error) {
	switch {
	case batch == nil:
		return IngestResult{}, invalidf("utterances is required")
	case len(batch) == 0:
		return IngestResult{}, invalidf("utterances must not be empty")
	case len(batch) > MaxBatch:
		return IngestResult{}, invalidf("at most %d utterances per request, got %d", MaxBatch, len(batch))
	}
	us := make([]store.Utterance, len(batch))
	for i, u := range batch {
		conf := float32(1)
		if u.Confidence != nil {
			conf = *u.Confidence
		}
		us[i] = store.Utterance{
			SegmentID: u.SegmentID, SpeakerID: u.SpeakerID, SpeakerName: u.SpeakerName, Text: u.Text,
			StartMS: u.StartMS, EndMS: u.EndMS, Confidence: conf, Source: u.Source,
		}
		if us[i].Source == "" {
			us[i].Source = "api"
		}
		if err := us[i].Validate(); err != nil {
			return IngestResult{}, invalidf("utterances[%d]: %s", i, unwrapInvalid(err))
		}
		us[i].Tokens = s.Tokens.Count(u.Text)
	}
	res, err := s.Store.Ingest(ctx, tenantID, meetingID, us)
	if err != nil {
		return IngestResult{}, notFound(err)
	}
	cursor, err := s.Contexts.ApplyInserted(ctx, tenantID, meetingID, res.Inserted)
	if err != nil {
		// Stored is stored: the context catches up on the next sync.
		s.Log.WarnContext(ctx, "apply to context", "meeting_id", meetingID, "err", err)
		cursor = res.NextSeq - 1
	}
	return IngestResult{Inserted: len(res.Inserted), Duplicates: res.Duplicates, Cursor: cursor}, nil
}

// unwrapInvalid drops the sentinel's prefix from a validation message.
func unwrapInvalid(err error) string {
	return strings.TrimPrefix(err.Error(), store.ErrInvalid.Error()+": ")
}
