package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

func utter(seg, text string) store.Utterance {
	return store.Utterance{SegmentID: seg, SpeakerID: "s1", SpeakerName: "Speaker 1", Text: text, Confidence: 1, Tokens: 3}
}

func newMeeting(t *testing.T, s *store.Store, tenant string) (store.Tenant, store.Meeting) {
	t.Helper()
	ctx := context.Background()
	tn, err := s.EnsureTenant(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.CreateMeeting(ctx, tn.ID, store.NewMeeting{Title: "weekly", RoomName: "room-1", Language: "ko"})
	if err != nil {
		t.Fatal(err)
	}
	return tn, m
}

func TestMigrateConcurrentlyAppliesOnce(t *testing.T) {
	dsn, schema := storetest.NewSchema(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	applied := make([][]int, 4)
	errs := make([]error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := store.Open(ctx, dsn, store.Options{Schema: schema, MaxConns: 2})
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			applied[i], errs[i] = s.Migrate(ctx)
		}()
	}
	wg.Wait()
	total := 0
	for i := range 4 {
		if errs[i] != nil {
			t.Fatalf("migrate %d: %v", i, errs[i])
		}
		total += len(applied[i])
	}
	s, err := store.Open(ctx, dsn, store.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if total != n || n == 0 {
		t.Fatalf("applied %d migrations across callers, %d recorded", total, n)
	}
}

func TestIngestIsIdempotent(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	batch := []store.Utterance{utter("a", "안녕하세요 여러분"), utter("b", "let's start"), utter("a", "repeat in batch")}
	res, err := s.Ingest(ctx, tn.ID, m.ID, batch)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inserted) != 2 || res.Duplicates != 1 || res.NextSeq != 2 {
		t.Fatalf("first ingest: inserted %d dup %d next %d", len(res.Inserted), res.Duplicates, res.NextSeq)
	}
	if res.Inserted[0].Seq != 0 || res.Inserted[1].Seq != 1 || res.Inserted[0].Text != "안녕하세요 여러분" {
		t.Fatalf("seq/text: %+v", res.Inserted)
	}
	res, err = s.Ingest(ctx, tn.ID, m.ID, append(batch, utter("c", "new one")))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inserted) != 1 || res.Inserted[0].Seq != 2 || res.Duplicates != 3 {
		t.Fatalf("second ingest: %+v", res)
	}
	stored, err := s.ListTranscripts(ctx, tn.ID, m.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stored, res.Inserted) {
		t.Fatalf("ingest reported %+v, database holds %+v", res.Inserted, stored)
	}
	got, err := s.GetMeeting(ctx, tn.ID, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Utterances != 3 || got.Tokens != 9 {
		t.Fatalf("counters: utterances %d tokens %d", got.Utterances, got.Tokens)
	}
}

func TestIngestConcurrentWritersGetGaplessSeq(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	const writers, batches, per = 6, 10, 8
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				var us []store.Utterance
				for i := range per {
					// Writers overlap pairwise: w and w^1 send the same ids.
					us = append(us, utter(fmt.Sprintf("w%d-b%d-i%d", w/2, b, i), "text"))
				}
				if _, err := s.Ingest(ctx, tn.ID, m.ID, us); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	ts, err := s.ListTranscripts(ctx, tn.ID, m.ID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := writers / 2 * batches * per
	if len(ts) != want {
		t.Fatalf("stored %d rows, want %d", len(ts), want)
	}
	seen := map[string]bool{}
	for i, tr := range ts {
		if tr.Seq != i {
			t.Fatalf("row %d has seq %d", i, tr.Seq)
		}
		if seen[tr.SegmentID] {
			t.Fatalf("segment %s stored twice", tr.SegmentID)
		}
		seen[tr.SegmentID] = true
	}
}

func TestIngestRejectsInvalidBatchWhole(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	tests := []struct {
		name string
		give store.Utterance
	}{
		{"empty segment", utter("", "x")},
		{"empty text", utter("x", "  ")},
		{"bad utf8", utter("x", "a\xffb")},
		{"nul", utter("x", "a\x00b")},
		{"negative time", store.Utterance{SegmentID: "x", SpeakerID: "s", Text: "t", StartMS: -1}},
		{"end before start", store.Utterance{SegmentID: "x", SpeakerID: "s", Text: "t", StartMS: 10, EndMS: 5}},
		{"confidence", store.Utterance{SegmentID: "x", SpeakerID: "s", Text: "t", Confidence: 1.5}},
		{"no speaker", store.Utterance{SegmentID: "x", Text: "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Ingest(ctx, tn.ID, m.ID, []store.Utterance{utter("ok", "fine"), tt.give})
			if !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
	ts, err := s.ListTranscripts(ctx, tn.ID, m.ID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 0 {
		t.Fatalf("invalid batches stored %d rows", len(ts))
	}
}

func TestTenantIsolation(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	a, m := newMeeting(t, s, "tenant-a")
	b, err := s.EnsureTenant(ctx, "tenant-b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ingest(ctx, a.ID, m.ID, []store.Utterance{utter("1", "secret plan")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetMeeting(ctx, b.ID, m.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
	if _, err := s.Ingest(ctx, b.ID, m.ID, []store.Utterance{utter("2", "x")}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ingest: %v", err)
	}
	if _, err := s.EndMeeting(ctx, b.ID, m.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("end: %v", err)
	}
	ts, err := s.ListTranscripts(ctx, b.ID, m.ID, -1, 0)
	if err != nil || len(ts) != 0 {
		t.Fatalf("list as b: %d rows, %v", len(ts), err)
	}
	ms, err := s.ListMeetings(ctx, b.ID, 10)
	if err != nil || len(ms) != 0 {
		t.Fatalf("b lists %d meetings, %v", len(ms), err)
	}
}

func TestAPIKeys(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	key, err := s.CreateAPIKey(ctx, "acme", "ci")
	if err != nil {
		t.Fatal(err)
	}
	tn, err := s.Authenticate(ctx, key)
	if err != nil || tn.Name != "acme" {
		t.Fatalf("authenticate: %+v %v", tn, err)
	}
	var stored int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE key_hash = $1::text::bytea`, key).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 0 {
		t.Fatal("key stored in clear text")
	}
	if _, err := s.Authenticate(ctx, key+"x"); !errors.Is(err, store.ErrUnauthenticated) {
		t.Fatalf("wrong key: %v", err)
	}
	if err := s.RevokeAPIKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, key); !errors.Is(err, store.ErrUnauthenticated) {
		t.Fatalf("revoked key: %v", err)
	}
	if err := s.PutAPIKey(ctx, "dev", "dev", "dev-key"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAPIKey(ctx, "dev", "dev", "dev-key"); err != nil {
		t.Fatalf("second put: %v", err)
	}
	if err := s.PutAPIKey(ctx, "other", "x", "dev-key"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stealing a key: %v", err)
	}
}

func TestTailAndList(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	var us []store.Utterance
	for i := range 30 {
		us = append(us, utter(fmt.Sprint(i), fmt.Sprint("turn ", i)))
	}
	if _, err := s.Ingest(ctx, tn.ID, m.ID, us); err != nil {
		t.Fatal(err)
	}
	_, tail, err := s.MeetingTail(ctx, tn.ID, m.ID, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(tail) != 5 || tail[0].Seq != 25 || tail[4].Seq != 29 {
		t.Fatalf("tail: %d rows from %d", len(tail), tail[0].Seq)
	}
	after, err := s.ListTranscripts(ctx, tn.ID, m.ID, 27, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 2 || after[0].Seq != 28 {
		t.Fatalf("after 27: %+v", after)
	}
}
