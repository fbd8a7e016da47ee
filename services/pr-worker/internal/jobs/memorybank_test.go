package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/services/pr-worker/internal/jobs"
)

func endedMeeting(t *testing.T, st *store.Store) (store.Tenant, store.Meeting) {
	t.Helper()
	ctx := context.Background()
	tn, err := st.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.CreateMeeting(ctx, tn.ID, store.NewMeeting{Title: "Sprint review 스프린트 회고"})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"Alice|We decided to drop the legacy export feature.",
		"민수|제가 금요일까지 변경 로그를 정리하겠습니다.",
		"Bob|How do we tell the customers who still use the export?",
		"Carol|Next time we should have run the load test earlier.",
	}
	us := make([]store.Utterance, 40)
	for i := range us {
		who, text, _ := strings.Cut(lines[i%len(lines)], "|")
		us[i] = store.Utterance{SegmentID: fmt.Sprint("s", i), SpeakerName: who, Text: text,
			StartMS: int64(i) * 5000, EndMS: int64(i)*5000 + 4000, Confidence: 1}
	}
	if _, err := st.Ingest(ctx, tn.ID, m.ID, us); err != nil {
		t.Fatal(err)
	}
	if m, err = st.EndMeeting(ctx, tn.ID, m.ID); err != nil {
		t.Fatal(err)
	}
	return tn, m
}

func bankTask(t *testing.T, p *mithubv1.MemoryBankUpdateTask) *asynq.Task {
	t.Helper()
	b, err := proto.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return asynq.NewTask(tasks.TypeMemoryBankUpdate, b)
}

// After a meeting ends, its project status is written first, then the
// other categories; running the job again leaves the bank as it was.
func TestMemoryBankUpdateAfterMeeting(t *testing.T) {
	st := storetest.New(t)
	ctx := context.Background()
	tn, m := endedMeeting(t, st)
	h := jobs.NewMemoryBankHandler(st, prdoc.NewLocal(), prdoc.DefaultMaxBytes, slog.New(slog.NewTextHandler(io.Discard, nil)))
	task := bankTask(t, &mithubv1.MemoryBankUpdateTask{TenantId: tn.ID, MeetingId: m.ID, Project: "앱", EndedAtUnixMs: time.Now().UnixMilli()})

	if err := h.ProcessTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	sts, err := st.ProjectStatuses(ctx, tn.ID, "앱", 0)
	if err != nil || len(sts) != 1 || !strings.Contains(sts[0].Content, "We decided to drop the legacy export feature.") {
		t.Fatalf("project status = %+v %v", sts, err)
	}
	bank, err := st.MemoryBank(ctx, tn.ID, "앱")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]membank.Entry{}
	for _, e := range bank {
		got[e.Category] = e
		if e.UpdatedAt.Before(sts[0].UpdatedAt) {
			t.Errorf("%s updated at %v, before the project status (%v)", e.Category, e.UpdatedAt, sts[0].UpdatedAt)
		}
	}
	checks := map[string]string{
		membank.CategoryDecisions: "Sprint review 스프린트 회고: We decided to drop the legacy export feature. (Alice)",
		membank.CategoryProgress:  "- [ ] 민수: 제가 금요일까지 변경 로그를 정리하겠습니다.",
		membank.CategoryLessons:   "Next time we should have run the load test earlier.",
		membank.CategorySummary:   "Sprint review",
	}
	for cat, want := range checks {
		if !strings.Contains(got[cat].Content, want) {
			t.Errorf("%s = %q, want it to contain %q", cat, got[cat].Content, want)
		}
	}

	if err := h.ProcessTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	again, err := st.MemoryBank(ctx, tn.ID, "앱")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range again {
		if e.Content != got[e.Category].Content {
			t.Errorf("second run changed %s:\n%s", e.Category, e.Content)
		}
	}
}

// A project's bank keeps its newest meetings within the handler's bound
// per category; older meetings' sections leave, their project status stays.
func TestMemoryBankUpdateKeepsCategoriesWithinTheBound(t *testing.T) {
	const limit = 1500
	st := storetest.New(t)
	ctx := context.Background()
	h := jobs.NewMemoryBankHandler(st, prdoc.NewLocal(), limit, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var ids []string
	var tenantID string
	for range 8 {
		tn, m := endedMeeting(t, st)
		tenantID = tn.ID
		ids = append(ids, m.ID)
		if err := h.ProcessTask(ctx, bankTask(t, &mithubv1.MemoryBankUpdateTask{TenantId: tn.ID, MeetingId: m.ID, Project: "앱"})); err != nil {
			t.Fatal(err)
		}
		bank, err := st.MemoryBank(ctx, tn.ID, "앱")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range bank {
			if e.Category == membank.CategoryOverview {
				continue
			}
			if len(e.Content) > limit {
				t.Errorf("%s is %d bytes after %d meetings, over %d", e.Category, len(e.Content), len(ids), limit)
			}
			if !strings.Contains(e.Content, "mithub:meeting="+m.ID+" ") {
				t.Errorf("%s lacks the newest meeting %s", e.Category, m.ID)
			}
		}
	}
	bank, err := st.MemoryBank(ctx, tenantID, "앱")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range bank {
		if e.Category == membank.CategoryDecisions && strings.Contains(e.Content, "mithub:meeting="+ids[0]+" ") {
			t.Errorf("the first meeting's decisions are still in the bank:\n%s", e.Content)
		}
	}
	sts, err := st.ProjectStatuses(ctx, tenantID, "앱", 0)
	if err != nil || len(sts) != len(ids) {
		t.Fatalf("project statuses: %d of %d, %v", len(sts), len(ids), err)
	}
}

func TestMemoryBankUpdateRejectsBadTasksWithoutRetry(t *testing.T) {
	st := storetest.New(t)
	tn, m := endedMeeting(t, st)
	h := jobs.NewMemoryBankHandler(st, prdoc.NewLocal(), prdoc.DefaultMaxBytes, slog.New(slog.NewTextHandler(io.Discard, nil)))
	tests := []struct {
		name string
		give *asynq.Task
	}{
		{"garbage", asynq.NewTask(tasks.TypeMemoryBankUpdate, []byte{0xff})},
		{"unknown meeting", bankTask(t, &mithubv1.MemoryBankUpdateTask{TenantId: tn.ID, MeetingId: "00000000-0000-4000-8000-000000000000", Project: "p"})},
		{"bad project", bankTask(t, &mithubv1.MemoryBankUpdateTask{TenantId: tn.ID, MeetingId: m.ID, Project: "a/b"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := h.ProcessTask(context.Background(), tt.give); !errors.Is(err, asynq.SkipRetry) {
				t.Errorf("ProcessTask = %v, want asynq.SkipRetry", err)
			}
		})
	}
}
