package tasks_test

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/tasks"
)

const (
	prID      = "a3e0c1d2-7b8f-4e59-8f6a-1c2d3e4f5a6b"
	meetingID = "4f1c2b9e-0d55-4a43-9a0e-7d1b7f3c2a10"
	tenantID  = "0b7e2a4c-1111-4c2d-9e3f-5a6b7c8d9e0f"
)

func TestPRGenerateTaskRoundTrip(t *testing.T) {
	want := &mithubv1.PRGenerateTask{
		PrId: prID, MeetingId: meetingID, TenantId: tenantID, LastTranscriptId: 42, RequestedBy: "key",
		Snapshot: &mithubv1.TopicSnapshot{Topics: []*mithubv1.Topic{{Title: "예산", EndSeq: 9}}},
	}
	task, err := tasks.NewPRGenerateTask(want)
	if err != nil {
		t.Fatal(err)
	}
	if task.Type() != tasks.TypePRGenerate {
		t.Errorf("type = %q", task.Type())
	}
	got, err := tasks.ParsePRGenerateTask(task.Payload())
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Errorf("round trip = %v, want %v", got, want)
	}
}

func TestPRGenerateTaskRejectsBadPayloads(t *testing.T) {
	ok := func() *mithubv1.PRGenerateTask {
		return &mithubv1.PRGenerateTask{PrId: prID, MeetingId: meetingID, TenantId: tenantID}
	}
	tests := []struct {
		name string
		give []byte
	}{
		{"garbage", []byte{0xff, 0xff, 0xff}},
		{"empty", nil},
		{"no pr id", mustMarshal(t, func() *mithubv1.PRGenerateTask { p := ok(); p.PrId = ""; return p }())},
		{"meeting not uuid", mustMarshal(t, func() *mithubv1.PRGenerateTask { p := ok(); p.MeetingId = "m-1"; return p }())},
		{"negative last id", mustMarshal(t, func() *mithubv1.PRGenerateTask { p := ok(); p.LastTranscriptId = -1; return p }())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tasks.ParsePRGenerateTask(tt.give); !errors.Is(err, tasks.ErrInvalidPayload) {
				t.Errorf("ParsePRGenerateTask = %v, want ErrInvalidPayload", err)
			}
		})
	}
	if _, err := tasks.NewPRGenerateTask(&mithubv1.PRGenerateTask{}); !errors.Is(err, tasks.ErrInvalidPayload) {
		t.Errorf("NewPRGenerateTask(empty) = %v, want ErrInvalidPayload", err)
	}
}

func TestMemoryBankUpdateTaskRoundTrip(t *testing.T) {
	want := &mithubv1.MemoryBankUpdateTask{TenantId: tenantID, MeetingId: meetingID, Project: "밋허브", EndedAtUnixMs: 1}
	task, err := tasks.NewMemoryBankUpdateTask(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tasks.ParseMemoryBankUpdateTask(task.Payload())
	if err != nil || !proto.Equal(got, want) {
		t.Fatalf("round trip = %v %v", got, err)
	}
	if _, err := tasks.ParseMemoryBankUpdateTask(mustMarshal(t, &mithubv1.MemoryBankUpdateTask{TenantId: tenantID, MeetingId: meetingID})); !errors.Is(err, tasks.ErrInvalidPayload) {
		t.Errorf("no project = %v, want ErrInvalidPayload", err)
	}
}

func TestRetryDelayGrowsAndIsCapped(t *testing.T) {
	tests := []struct {
		give     int
		min, max time.Duration
	}{
		{0, 750 * time.Millisecond, 1250 * time.Millisecond},
		{3, 6 * time.Second, 10 * time.Second},
		{30, 225 * time.Second, 375 * time.Second},
	}
	for _, tt := range tests {
		for range 50 {
			if d := tasks.RetryDelay(tt.give, nil, nil); d < tt.min || d > tt.max {
				t.Fatalf("RetryDelay(%d) = %v, want within [%v, %v]", tt.give, d, tt.min, tt.max)
			}
		}
	}
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
