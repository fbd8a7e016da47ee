package tasks

import (
	"context"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
)

// TypeMemoryBankUpdate updates a project's memory bank after one of its
// meetings ended: project_status first, then the other categories.
const TypeMemoryBankUpdate = "memory:bank-update"

// Options of memory:bank-update tasks.
const (
	MemoryBankUpdateMaxRetry  = 5
	MemoryBankUpdateTimeout   = 10 * time.Minute
	MemoryBankUpdateRetention = time.Hour
)

// MemoryBankUpdateTaskID is the task id of a meeting's memory-bank update:
// one per meeting, so ending a meeting twice updates the bank once.
func MemoryBankUpdateTaskID(meetingID string) string { return "memory-bank:" + meetingID }

// NewMemoryBankUpdateTask returns the memory:bank-update task for p, in
// the memory queue with a task id derived from the meeting id. opts are
// applied after the defaults.
func NewMemoryBankUpdateTask(p *mithubv1.MemoryBankUpdateTask, opts ...asynq.Option) (*asynq.Task, error) {
	return NewMemoryBankUpdateTaskContext(context.Background(), p, opts...)
}

// NewMemoryBankUpdateTaskContext is NewMemoryBankUpdateTask carrying
// ctx's trace context in the task's headers.
func NewMemoryBankUpdateTaskContext(ctx context.Context, p *mithubv1.MemoryBankUpdateTask, opts ...asynq.Option) (*asynq.Task, error) {
	if err := checkMemoryBankUpdate(p); err != nil {
		return nil, err
	}
	b, err := proto.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", TypeMemoryBankUpdate, err)
	}
	opts = append([]asynq.Option{
		asynq.TaskID(MemoryBankUpdateTaskID(p.GetMeetingId())),
		asynq.Queue(MemoryQueueName),
		asynq.MaxRetry(MemoryBankUpdateMaxRetry),
		asynq.Timeout(MemoryBankUpdateTimeout),
		asynq.Retention(MemoryBankUpdateRetention),
	}, opts...)
	return newTask(ctx, TypeMemoryBankUpdate, b, opts), nil
}

// ParseMemoryBankUpdateTask decodes a memory:bank-update payload.
func ParseMemoryBankUpdateTask(payload []byte) (*mithubv1.MemoryBankUpdateTask, error) {
	p := &mithubv1.MemoryBankUpdateTask{}
	if err := proto.Unmarshal(payload, p); err != nil {
		return nil, fmt.Errorf("decode %s payload: %w: %v", TypeMemoryBankUpdate, ErrInvalidPayload, err)
	}
	if err := checkMemoryBankUpdate(p); err != nil {
		return nil, err
	}
	return p, nil
}

func checkMemoryBankUpdate(p *mithubv1.MemoryBankUpdateTask) error {
	if !isUUID(p.GetMeetingId()) || !isUUID(p.GetTenantId()) {
		return fmt.Errorf("%s payload: %w: meeting_id and tenant_id must be UUIDs", TypeMemoryBankUpdate, ErrInvalidPayload)
	}
	if p.GetProject() == "" {
		return fmt.Errorf("%s payload: %w: project is required", TypeMemoryBankUpdate, ErrInvalidPayload)
	}
	return nil
}
