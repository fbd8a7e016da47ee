package room

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/services/realtime-worker/internal/ingest"
	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

// A session told to stop stores every final segment already queued,
// although its stop and its queue are both ready: Go's select would pick
// either. Interim segments, the bot's own and empty ones stay out.
func TestStopStoresQueuedSegments(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	tn, err := st.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.CreateMeeting(ctx, tn.ID, store.NewMeeting{Title: "주간 회의", RoomName: "weekly"})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ingest.OpenSpool(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	w := ingest.NewWriter(st, sp, 50, log, nil)
	runCtx, stopWriter := context.WithCancel(ctx)
	writerDone := make(chan struct{})
	go func() { w.Run(runCtx, 2*time.Second); sp.Close(); close(writerDone) }()
	t.Cleanup(func() { stopWriter(); <-writerDone })

	s := newSession(Deps{Settings: Settings{Identity: "mithub-bot"}, Writer: w, Log: log}, "weekly", tn.ID, m)
	const final = 300
	seg := func(id, speaker, text string, isFinal bool) event {
		return segmentEvent{seg: transcript.Segment{ID: id, SpeakerID: speaker, SpeakerName: speaker, Text: text,
			Final: isFinal, Confidence: 1, Source: transcript.SourceTextStream, StartMS: 1000, EndMS: 2000}}
	}
	for i := range final {
		text := fmt.Sprintf("예산 항목 %d를 정리합시다. Item %d is settled.", i, i)
		s.events <- seg(fmt.Sprintf("seg-%03d", i), "kim", text, true)
		if i%50 == 0 {
			s.events <- seg(fmt.Sprintf("interim-%03d", i), "kim", text, false)
			s.events <- seg(fmt.Sprintf("empty-%03d", i), "kim", "", true)
			s.events <- seg(fmt.Sprintf("bot-%03d", i), "mithub-bot", text, true)
		}
	}
	stopCtx, cancel := context.WithCancel(ctx)
	cancel()
	if out, again := s.serve(stopCtx, lksdk.NewRoom(lksdk.NewRoomCallback()), make(chan struct{})); out != stopped || again {
		t.Fatalf("serve after a stop = (%v, %v), want (stopped, false)", out, again)
	}
	if _, err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := st.TranscriptRange(ctx, tn.ID, m.ID, 0, 10*final, 10*final)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != final {
		t.Fatalf("%d segments stored, want the %d final ones queued before the stop", len(rows), final)
	}
	for i, r := range rows {
		if want := fmt.Sprintf("seg-%03d", i); r.SegmentID != want || r.Seq != i {
			t.Fatalf("row %d is %s (seq %d), want %s", i, r.SegmentID, r.Seq, want)
		}
	}
	if len(s.events) != 0 {
		t.Fatalf("%d events still queued", len(s.events))
	}
}

// memWriter keeps what a session queues.
type memWriter struct{ rows []store.Utterance }

func (w *memWriter) Add(_ context.Context, _, _ string, u store.Utterance) error {
	w.rows = append(w.rows, u)
	return nil
}

func (w *memWriter) Flush(context.Context) (bool, error) { return true, nil }

// A segment with invalid bytes is stored repaired and an over-long one is
// stored whole as consecutive parts; both are logged, none is dropped.
func TestRecordRepairsAndSplitsInsteadOfDropping(t *testing.T) {
	var logs strings.Builder
	w := &memWriter{}
	s := newSession(Deps{Settings: Settings{Identity: "mithub-bot"}, Writer: w,
		Log: slog.New(slog.NewJSONHandler(&logs, nil))}, "weekly", "t1", store.Meeting{ID: "m1"})
	bad := transcript.Segment{ID: "bad-1", SpeakerID: "kim", Text: "미트허브, 출시일\xff 언제야?", Final: true, Confidence: 1, Source: transcript.SourceTextStream}
	got, ok := s.record(context.Background(), bad)
	if !ok || len(w.rows) != 1 {
		t.Fatalf("segment with an invalid byte: ok=%v, %d rows", ok, len(w.rows))
	}
	if want := "미트허브, 출시일\uFFFD 언제야?"; w.rows[0].Text != want || got.Text != want || w.rows[0].SegmentID != "bad-1" {
		t.Fatalf("stored %q as %q, returned %q", w.rows[0].SegmentID, w.rows[0].Text, got.Text)
	}
	long := strings.Repeat("the budget line item is settled ", 1300) // 41 600 bytes
	w.rows = nil
	got, ok = s.record(context.Background(), transcript.Segment{ID: "long-1", SpeakerID: "lee", Text: long, Final: true, Confidence: 1, Source: transcript.SourceTextStream})
	if !ok || len(w.rows) != 2 {
		t.Fatalf("over-long segment: ok=%v, %d rows, want 2", ok, len(w.rows))
	}
	if w.rows[0].SegmentID != "long-1#1" || w.rows[1].SegmentID != "long-1#2" || w.rows[0].Text+w.rows[1].Text != long {
		t.Fatalf("parts %q, %q do not add up to the text", w.rows[0].SegmentID, w.rows[1].SegmentID)
	}
	if got.Text != long || got.ID != "long-1#1" {
		t.Fatalf("returned segment %q with %d bytes", got.ID, len(got.Text))
	}
	for _, msg := range []string{"replaced with U+FFFD and stored", "stored as consecutive parts"} {
		if !strings.Contains(logs.String(), msg) {
			t.Errorf("no log line %q in:\n%s", msg, logs.String())
		}
	}
}
