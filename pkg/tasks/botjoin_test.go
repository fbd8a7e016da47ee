package tasks_test

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/tasks"
)

func TestBotJoinTaskRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		give *mithubv1.BotJoinTask
	}{
		{"room only", &mithubv1.BotJoinTask{RoomName: "주간 회의"}},
		{"with ids", &mithubv1.BotJoinTask{RoomName: "standup", MeetingId: meetingID, TenantId: tenantID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task, err := tasks.NewBotJoinTask(tt.give)
			if err != nil {
				t.Fatal(err)
			}
			if task.Type() != tasks.TypeBotJoin {
				t.Errorf("type = %q, want %q", task.Type(), tasks.TypeBotJoin)
			}
			got, err := tasks.ParseBotJoinTask(task.Payload())
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, tt.give) {
				t.Errorf("round trip = %v, want %v", got, tt.give)
			}
		})
	}
}

func TestBotJoinTaskRejectsBadPayloads(t *testing.T) {
	marshal := func(p *mithubv1.BotJoinTask) []byte {
		b, err := proto.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		give []byte
	}{
		{"garbage", []byte{0xff, 0xff, 0xff}},
		{"empty", nil},
		{"blank room", marshal(&mithubv1.BotJoinTask{RoomName: "  "})},
		{"long room", marshal(&mithubv1.BotJoinTask{RoomName: strings.Repeat("r", tasks.MaxRoomNameLen+1)})},
		{"meeting not uuid", marshal(&mithubv1.BotJoinTask{RoomName: "r", MeetingId: "m-1"})},
		{"tenant not uuid", marshal(&mithubv1.BotJoinTask{RoomName: "r", TenantId: "dev"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tasks.ParseBotJoinTask(tt.give); !errors.Is(err, tasks.ErrInvalidPayload) {
				t.Errorf("ParseBotJoinTask = %v, want ErrInvalidPayload", err)
			}
		})
	}
	if _, err := tasks.NewBotJoinTask(&mithubv1.BotJoinTask{}); !errors.Is(err, tasks.ErrInvalidPayload) {
		t.Errorf("NewBotJoinTask without room = %v, want ErrInvalidPayload", err)
	}
}
