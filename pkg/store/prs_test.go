package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
)

func newPR(t *testing.T, s *store.Store, tenantID, meetingID string) meetingpr.PR {
	t.Helper()
	pr, created, err := s.CreatePR(context.Background(), tenantID, meetingpr.NewPR{
		MeetingID: meetingID, Project: "default", TopicSnapshot: json.RawMessage(`{"topics":[]}`),
		LastTranscriptID: 7, RequestedBy: "key-1",
	})
	if err != nil || !created {
		t.Fatalf("CreatePR = %v, created %v", err, created)
	}
	return pr
}

func TestCreatePROneOpenPerMeeting(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")

	// Concurrent requests for the same meeting get one PR between them.
	const n = 8
	var (
		wg      sync.WaitGroup
		ids     = make([]string, n)
		created = make([]bool, n)
		errs    = make([]error, n)
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var pr meetingpr.PR
			pr, created[i], errs[i] = s.CreatePR(ctx, tn.ID, meetingpr.NewPR{MeetingID: m.ID, Project: "p"})
			ids[i] = pr.ID
		}()
	}
	wg.Wait()
	nCreated := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("CreatePR %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Errorf("request %d got PR %s, request 0 got %s", i, ids[i], ids[0])
		}
		if created[i] {
			nCreated++
		}
	}
	if nCreated != 1 {
		t.Errorf("%d requests created a PR, want 1", nCreated)
	}

	// Once it finished, the next request creates a new one.
	if _, err := s.CompletePR(ctx, tn.ID, ids[0], meetingpr.Content{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	pr, created2, err := s.CreatePR(ctx, tn.ID, meetingpr.NewPR{MeetingID: m.ID, Project: "p"})
	if err != nil || !created2 || pr.ID == ids[0] || pr.Status != meetingpr.Queued {
		t.Errorf("CreatePR after completion = %s %s created %v, %v; want a new queued PR", pr.ID, pr.Status, created2, err)
	}
}

func TestCreatePRRejectsBadInputAndOtherTenants(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	_, m := newMeeting(t, s, "acme")
	other, err := s.EnsureTenant(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		give meetingpr.NewPR
		want error
	}{
		{"other tenant's meeting", meetingpr.NewPR{MeetingID: m.ID, Project: "p"}, store.ErrNotFound},
		{"not a uuid", meetingpr.NewPR{MeetingID: "nope", Project: "p"}, store.ErrInvalid},
		{"no project", meetingpr.NewPR{MeetingID: m.ID}, store.ErrInvalid},
		{"slash in project", meetingpr.NewPR{MeetingID: m.ID, Project: "a/b"}, store.ErrInvalid},
		{"snapshot not json", meetingpr.NewPR{MeetingID: m.ID, Project: "p", TopicSnapshot: json.RawMessage(`{`)}, store.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := s.CreatePR(ctx, other.ID, tt.give)
			if !errors.Is(err, tt.want) {
				t.Errorf("CreatePR = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestPRLifecycle(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	pr := newPR(t, s, tn.ID, m.ID)

	started, ok, err := s.StartPR(ctx, tn.ID, pr.ID)
	if err != nil || !ok || started.Status != meetingpr.Running || started.Attempts != 1 {
		t.Fatalf("StartPR = %+v %v %v", started, ok, err)
	}
	// A redelivered task starts it again and counts the attempt.
	again, ok, err := s.StartPR(ctx, tn.ID, pr.ID)
	if err != nil || !ok || again.Attempts != 2 {
		t.Fatalf("second StartPR = attempts %d %v %v", again.Attempts, ok, err)
	}

	content := meetingpr.Content{
		Title: "주간 회의", Markdown: "# 주간 회의\n",
		Agenda:    json.RawMessage(`[{"title":"예산"}]`),
		Decisions: json.RawMessage(`[{"text":"ship"}]`),
	}
	done, err := s.CompletePR(ctx, tn.ID, pr.ID, content)
	if err != nil || done.Status != meetingpr.Succeeded || done.Title != "주간 회의" || done.FinishedAt == nil {
		t.Fatalf("CompletePR = %+v, %v", done, err)
	}
	if string(done.ActionItems) != "[]" || !strings.Contains(string(done.Agenda), "예산") {
		t.Errorf("lists = agenda %s action_items %s", done.Agenda, done.ActionItems)
	}
	// Upsert: the same content again leaves one row with it.
	if _, err := s.CompletePR(ctx, tn.ID, pr.ID, content); err != nil {
		t.Fatalf("CompletePR again: %v", err)
	}
	prs, err := s.ListMeetingPRs(ctx, tn.ID, m.ID)
	if err != nil || len(prs) != 1 || prs[0].Status != meetingpr.Succeeded {
		t.Fatalf("ListMeetingPRs = %d PRs, %v", len(prs), err)
	}
	// A finished PR is not started again.
	if cur, ok, err := s.StartPR(ctx, tn.ID, pr.ID); err != nil || ok || cur.Status != meetingpr.Succeeded {
		t.Errorf("StartPR on succeeded = %s %v %v; want unchanged", cur.Status, ok, err)
	}
	// FailPR does not undo a success.
	if cur, err := s.FailPR(ctx, tn.ID, pr.ID, "late"); err != nil || cur.Status != meetingpr.Succeeded {
		t.Errorf("FailPR on succeeded = %s %v", cur.Status, err)
	}

	rejected, err := s.RejectPR(ctx, tn.ID, pr.ID)
	if err != nil || rejected.Status != meetingpr.Rejected || rejected.ReviewedAt == nil {
		t.Fatalf("RejectPR = %+v %v", rejected, err)
	}
	if _, err := s.RejectPR(ctx, tn.ID, pr.ID); err != nil {
		t.Errorf("RejectPR twice = %v, want nil", err)
	}
	if _, err := s.CompletePR(ctx, tn.ID, pr.ID, content); !errors.Is(err, store.ErrConflict) {
		t.Errorf("CompletePR on rejected = %v, want ErrConflict", err)
	}
	if _, err := s.GetPR(ctx, "00000000-0000-0000-0000-000000000000", pr.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetPR of another tenant = %v, want ErrNotFound", err)
	}
}

func TestFailPRKeepsValidUTF8(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	pr := newPR(t, s, tn.ID, m.ID)
	msg := strings.Repeat("오류", meetingpr.MaxErrorLen) + "\x00"
	failed, err := s.FailPR(ctx, tn.ID, pr.ID, msg)
	if err != nil || failed.Status != meetingpr.Failed {
		t.Fatalf("FailPR = %s %v", failed.Status, err)
	}
	if len(failed.Error) > meetingpr.MaxErrorLen || !strings.HasPrefix(failed.Error, "오류오류") {
		t.Errorf("error stored as %d bytes %q...", len(failed.Error), failed.Error[:12])
	}
}

func TestApprovePRMergesAndRecordsStatus(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	pr := newPR(t, s, tn.ID, m.ID)

	merge := func(cur map[string]string) (map[string]string, error) {
		return map[string]string{membank.CategoryDecisions: cur[membank.CategoryDecisions] + "- ship\n"}, nil
	}
	status := func(p meetingpr.PR) string { return "status of " + p.ID }

	// Not succeeded yet: conflict, nothing written.
	if _, err := s.ApprovePR(ctx, tn.ID, pr.ID, []string{membank.CategoryDecisions}, merge, status); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("ApprovePR on queued = %v, want ErrConflict", err)
	}
	if _, err := s.MemoryEntryOf(ctx, tn.ID, "default", membank.CategoryDecisions); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused approval wrote the memory bank: %v", err)
	}

	if _, err := s.CompletePR(ctx, tn.ID, pr.ID, meetingpr.Content{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	approved, err := s.ApprovePR(ctx, tn.ID, pr.ID, []string{membank.CategoryDecisions}, merge, status)
	if err != nil || approved.Status != meetingpr.Approved {
		t.Fatalf("ApprovePR = %s %v", approved.Status, err)
	}
	// Approving again changes nothing.
	if _, err := s.ApprovePR(ctx, tn.ID, pr.ID, []string{membank.CategoryDecisions}, merge, status); err != nil {
		t.Fatalf("ApprovePR twice = %v", err)
	}
	e, err := s.MemoryEntryOf(ctx, tn.ID, "default", membank.CategoryDecisions)
	if err != nil || e.Content != "- ship\n" {
		t.Errorf("decisions = %q %v, want one ledger line", e.Content, err)
	}
	sts, err := s.ProjectStatuses(ctx, tn.ID, "default", 0)
	if err != nil || len(sts) != 1 || sts[0].MeetingID != m.ID || sts[0].Content != "status of "+pr.ID {
		t.Errorf("project status = %+v %v", sts, err)
	}
	if _, err := s.RejectPR(ctx, tn.ID, pr.ID); !errors.Is(err, store.ErrConflict) {
		t.Errorf("RejectPR on approved = %v, want ErrConflict", err)
	}
}

func TestApprovePRRollsBackOnMergeError(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	pr := newPR(t, s, tn.ID, m.ID)
	if _, err := s.CompletePR(ctx, tn.ID, pr.ID, meetingpr.Content{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	_, err := s.ApprovePR(ctx, tn.ID, pr.ID, []string{membank.CategorySummary},
		func(map[string]string) (map[string]string, error) { return nil, boom },
		func(meetingpr.PR) string { return "x" })
	if !errors.Is(err, boom) {
		t.Fatalf("ApprovePR = %v, want boom", err)
	}
	cur, err := s.GetPR(ctx, tn.ID, pr.ID)
	if err != nil || cur.Status != meetingpr.Succeeded {
		t.Errorf("PR after failed approval = %s %v, want succeeded", cur.Status, err)
	}
	if sts, _ := s.ProjectStatuses(ctx, tn.ID, "default", 0); len(sts) != 0 {
		t.Errorf("failed approval recorded status %+v", sts)
	}
}

func TestTranscriptsUpTo(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tn, m := newMeeting(t, s, "acme")
	res, err := s.Ingest(ctx, tn.ID, m.ID, []store.Utterance{utter("a", "하나"), utter("b", "two"), utter("c", "셋")})
	if err != nil {
		t.Fatal(err)
	}
	last, err := s.LastTranscriptID(ctx, tn.ID, m.ID, 1<<30)
	if err != nil || last != res.Inserted[2].ID {
		t.Fatalf("LastTranscriptID = %d %v, want %d", last, err, res.Inserted[2].ID)
	}
	if upTo1, err := s.LastTranscriptID(ctx, tn.ID, m.ID, 1); err != nil || upTo1 != res.Inserted[1].ID {
		t.Fatalf("LastTranscriptID(seq <= 1) = %d %v, want %d", upTo1, err, res.Inserted[1].ID)
	}
	got, err := s.TranscriptsUpTo(ctx, tn.ID, m.ID, res.Inserted[1].ID, 0)
	if err != nil || len(got) != 2 || got[1].Text != "two" {
		t.Fatalf("TranscriptsUpTo = %d rows %v", len(got), err)
	}
	all, err := s.TranscriptsUpTo(ctx, tn.ID, m.ID, 0, 0)
	if err != nil || len(all) != 3 {
		t.Errorf("TranscriptsUpTo(0) = %d rows %v, want 3", len(all), err)
	}
}
