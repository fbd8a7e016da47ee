package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hibiken/asynq"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/services/realtime-worker/internal/jobs"
	"github.com/mithub/mithub/services/realtime-worker/internal/room"
)

const tenant = "0b7e2a4c-1111-4c2d-9e3f-5a6b7c8d9e0f"

// joiner records joins and answers with err.
type joiner struct {
	err   error
	rooms []string
}

func (j *joiner) Join(_ context.Context, r, _ string) (string, error) {
	j.rooms = append(j.rooms, r)
	return "m", j.err
}

func task(t *testing.T, p *mithubv1.BotJoinTask) *asynq.Task {
	t.Helper()
	tk, err := tasks.NewBotJoinTask(p)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestBotJoinHandler(t *testing.T) {
	transient := errors.New("connection refused")
	tests := []struct {
		name      string
		give      *asynq.Task
		joinErr   error
		wantJoin  bool
		wantErr   bool
		wantRetry bool
	}{
		{"joins", task(t, &mithubv1.BotJoinTask{RoomName: "standup"}), nil, true, false, false},
		{"own tenant", task(t, &mithubv1.BotJoinTask{RoomName: "standup", TenantId: tenant}), nil, true, false, false},
		{"other tenant", task(t, &mithubv1.BotJoinTask{RoomName: "standup", TenantId: "4f1c2b9e-0d55-4a43-9a0e-7d1b7f3c2a10"}), nil, false, true, false},
		{"garbage payload", asynq.NewTask(tasks.TypeBotJoin, []byte{0xff, 0x01}), nil, false, true, false},
		{"unknown meeting", task(t, &mithubv1.BotJoinTask{RoomName: "r"}), fmt.Errorf("get: %w", store.ErrNotFound), true, true, false},
		{"ended meeting", task(t, &mithubv1.BotJoinTask{RoomName: "r"}), room.ErrMeetingEnded, true, true, false},
		{"database down", task(t, &mithubv1.BotJoinTask{RoomName: "r"}), transient, true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &joiner{err: tt.joinErr}
			err := jobs.NewBotJoinHandler(j, tenant).ProcessTask(context.Background(), tt.give)
			if (err != nil) != tt.wantErr || (len(j.rooms) == 1) != tt.wantJoin {
				t.Fatalf("err %v, joins %v", err, j.rooms)
			}
			if err != nil && errors.Is(err, asynq.SkipRetry) == tt.wantRetry {
				t.Errorf("err %v: retry = %v, want %v", err, !errors.Is(err, asynq.SkipRetry), tt.wantRetry)
			}
		})
	}
}
