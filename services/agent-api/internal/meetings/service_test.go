package meetings

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
)

// fakeStore records what Ingest stored and ends meetings it knows.
type fakeStore struct {
	got     []store.Utterance
	meeting store.Meeting
	err     error
}

func (f *fakeStore) GetMeeting(context.Context, string, string) (store.Meeting, error) {
	return f.meeting, f.err
}

func (f *fakeStore) EndMeeting(context.Context, string, string) (store.Meeting, error) {
	return f.meeting, f.err
}

func (f *fakeStore) Ingest(_ context.Context, _, _ string, us []store.Utterance) (store.IngestResult, error) {
	if f.err != nil {
		return store.IngestResult{}, f.err
	}
	f.got = us
	rows := make([]store.Transcript, len(us))
	return store.IngestResult{Inserted: rows, Duplicates: 1, NextSeq: 7}, nil
}

func (f *fakeStore) RecordPresence(context.Context, string, string, store.PresenceEvent) (bool, error) {
	return true, f.err
}

// fakeContexts has no live contexts.
type fakeContexts struct{}

var errNoContext = errors.New("no context")

func (fakeContexts) GetFresh(context.Context, string, string) (*meetingctx.Manager, error) {
	return nil, errNoContext
}

func (fakeContexts) GetAt(context.Context, string, string, store.Meeting) (*meetingctx.Manager, error) {
	return nil, errNoContext
}

func (fakeContexts) ApplyInserted(context.Context, string, string, []store.Transcript) (int, error) {
	return 0, errNoContext
}

// byteCounter counts a token per byte.
type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) }
func (byteCounter) Encoding() string   { return "bytes" }

func newService(st *fakeStore) *Service {
	return &Service{Store: st, Contexts: fakeContexts{}, Tokens: byteCounter{},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestIngestRejectsBadBatches(t *testing.T) {
	good := Utterance{SegmentID: "s", SpeakerName: "A", Text: "hi"}
	tests := []struct {
		name string
		give []Utterance
		want string
	}{
		{"nil", nil, "utterances is required"},
		{"empty", []Utterance{}, "utterances must not be empty"},
		{"too many", make([]Utterance, MaxBatch+1), "at most 1000 utterances per request, got 1001"},
		{"no text", []Utterance{good, {SegmentID: "t", SpeakerName: "A"}}, "utterances[1]: text is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newService(&fakeStore{}).Ingest(context.Background(), "t", "m", tt.give)
			if !errors.Is(err, ErrInvalid) || err.Error() != tt.want {
				t.Errorf("err %v, want %q in ErrInvalid", err, tt.want)
			}
		})
	}
}

func TestIngestFillsDefaultsAndFallsBackToStoredCursor(t *testing.T) {
	st := &fakeStore{}
	conf := float32(0.5)
	res, err := newService(st).Ingest(context.Background(), "t", "m", []Utterance{
		{SegmentID: "a", SpeakerName: "A", Text: "one"},
		{SegmentID: "b", SpeakerName: "B", Text: "three", Confidence: &conf, Source: "bot"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The context could not apply the rows: the cursor is the stored one.
	if want := (IngestResult{Inserted: 2, Duplicates: 1, Cursor: 6}); res != want {
		t.Errorf("result %+v, want %+v", res, want)
	}
	if st.got[0].Source != "api" || st.got[0].Confidence != 1 || st.got[0].Tokens != 3 {
		t.Errorf("first utterance %+v", st.got[0])
	}
	if st.got[1].Source != "bot" || st.got[1].Confidence != 0.5 {
		t.Errorf("second utterance %+v", st.got[1])
	}
}

func TestMissingMeetingIsErrNotFound(t *testing.T) {
	s := newService(&fakeStore{err: store.ErrNotFound})
	ctx := context.Background()
	if _, err := s.Ingest(ctx, "t", "m", []Utterance{{SegmentID: "a", SpeakerName: "A", Text: "x"}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("ingest: %v", err)
	}
	if _, err := s.End(ctx, "t", "m"); !errors.Is(err, ErrNotFound) {
		t.Errorf("end: %v", err)
	}
	if _, _, err := s.RecordPresence(ctx, "t", "m", Presence{ParticipantID: "p", Event: store.PresenceJoined}); !errors.Is(err, ErrNotFound) {
		t.Errorf("presence: %v", err)
	}
}

func TestEndCallsTheHookEvenWithoutAContext(t *testing.T) {
	st := &fakeStore{meeting: store.Meeting{ID: "m", Status: "ended"}}
	s := newService(st)
	var ended []string
	s.Ended = func(_ context.Context, tenantID string, m store.Meeting) { ended = append(ended, tenantID+"/"+m.ID) }
	m, err := s.End(context.Background(), "t", "m")
	if err != nil || m.ID != "m" {
		t.Fatalf("end: %+v %v", m, err)
	}
	if len(ended) != 1 || ended[0] != "t/m" {
		t.Errorf("hook calls %v", ended)
	}
}
