package prs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
)

// fakePRs is a PR store whose reviews conflict and whose FailPR records.
type fakePRs struct {
	Store  // unused methods panic
	pr     meetingpr.PR
	failed []string
}

func (f *fakePRs) GetPR(context.Context, string, string) (meetingpr.PR, error) { return f.pr, nil }

func (f *fakePRs) ApprovePR(context.Context, string, string, []string, membank.Merger, func(meetingpr.PR) string) (meetingpr.PR, error) {
	return f.pr, store.ErrConflict
}

func (f *fakePRs) RejectPR(context.Context, string, string) (meetingpr.PR, error) {
	return f.pr, store.ErrConflict
}

func (f *fakePRs) FailPR(_ context.Context, _, id, msg string) (meetingpr.PR, error) {
	f.failed = append(f.failed, id+": "+msg)
	return f.pr, nil
}

// fakeQueue fails every enqueue with err and keeps the tasks.
type fakeQueue struct {
	err   error
	tasks []*asynq.Task
}

func (q *fakeQueue) EnqueueContext(_ context.Context, t *asynq.Task, _ ...asynq.Option) (*asynq.TaskInfo, error) {
	q.tasks = append(q.tasks, t)
	return &asynq.TaskInfo{}, q.err
}

func newService(prs Store, q TaskQueue) *Service {
	return &Service{PRs: prs, Queue: q, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

const (
	tenantID  = "11111111-1111-1111-1111-111111111111"
	meetingID = "22222222-2222-2222-2222-222222222222"
	prID      = "33333333-3333-3333-3333-333333333333"
)

func TestUnconfiguredIsUnavailable(t *testing.T) {
	s := newService(nil, nil)
	ctx := context.Background()
	if _, err := s.Generate(ctx, tenantID, GenerateRequest{MeetingID: meetingID}); !errors.Is(err, ErrUnavailable) ||
		err.Error() != "PR generation is not configured on this server" {
		t.Errorf("generate: %v", err)
	}
	if _, err := s.Approve(ctx, tenantID, prID); !errors.Is(err, ErrUnavailable) || err.Error() != "PRs are not configured on this server" {
		t.Errorf("approve: %v", err)
	}
}

func TestReviewOfAPRInTheWrongStatusIsAConflict(t *testing.T) {
	s := newService(&fakePRs{pr: meetingpr.PR{ID: prID, Status: "running", MemoryUpdates: []byte(`[]`)}}, nil)
	_, err := s.Approve(context.Background(), tenantID, prID)
	if !errors.Is(err, ErrConflict) || err.Error() != "PR is running; only a succeeded PR can be approved" {
		t.Errorf("approve: %v", err)
	}
	_, err = s.Reject(context.Background(), tenantID, prID)
	if !errors.Is(err, ErrConflict) || err.Error() != "PR is running; only a succeeded or failed PR can be rejected" {
		t.Errorf("reject: %v", err)
	}
}

func TestEnqueueFailureFailsOnlyACreatedPR(t *testing.T) {
	pr := meetingpr.PR{ID: prID, MeetingID: meetingID, Status: "queued"}
	for _, created := range []bool{false, true} {
		st := &fakePRs{pr: pr}
		s := newService(st, &fakeQueue{err: errors.New("redis down")})
		_, err := s.enqueue(context.Background(), tenantID, pr, created)
		if !errors.Is(err, ErrUnavailable) || err.Error() != "the task queue is not reachable; try again" {
			t.Errorf("created %v: %v", created, err)
		}
		if want := map[bool]int{false: 0, true: 1}[created]; len(st.failed) != want ||
			(want == 1 && !strings.Contains(st.failed[0], "could not enqueue: redis down")) {
			t.Errorf("created %v: failed %v", created, st.failed)
		}
	}
}

func TestEnqueueTreatsATaskIDConflictAsQueued(t *testing.T) {
	pr := meetingpr.PR{ID: prID, MeetingID: meetingID, Status: "queued"}
	g, err := newService(&fakePRs{pr: pr}, &fakeQueue{err: asynq.ErrTaskIDConflict}).enqueue(context.Background(), tenantID, pr, true)
	if err != nil || !g.Queued || g.PR.ID != prID {
		t.Errorf("enqueue: %+v %v", g, err)
	}
}

func TestMeetingEndedQueuesTheMemoryBankUpdate(t *testing.T) {
	tests := []struct {
		give string // the meeting's metadata.project
		want string
	}{
		{"", membank.DefaultProject},
		{"mobile-app", "mobile-app"},
		{"not a project/..", membank.DefaultProject},
	}
	for _, tt := range tests {
		q := &fakeQueue{}
		m := store.Meeting{ID: meetingID}
		if tt.give != "" {
			m.Metadata = map[string]any{"project": tt.give}
		}
		newService(&fakePRs{}, q).MeetingEnded(context.Background(), tenantID, m)
		if len(q.tasks) != 1 || q.tasks[0].Type() != tasks.TypeMemoryBankUpdate {
			t.Fatalf("project %q: tasks %v", tt.give, q.tasks)
		}
		p, err := tasks.ParseMemoryBankUpdateTask(q.tasks[0].Payload())
		if err != nil || p.GetProject() != tt.want {
			t.Errorf("project %q: payload %v %v, want project %q", tt.give, p, err, tt.want)
		}
	}
}
