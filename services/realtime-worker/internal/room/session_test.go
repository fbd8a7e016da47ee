package room

import (
	"context"
	"fmt"
	"log/slog"
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
