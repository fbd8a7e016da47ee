package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// Long-conversation memory tasks (docs/architecture.md §7). Each writes one summary
// node; its handler then plans and enqueues what became ready, keeping at
// most the configured number of a compression's tasks in flight.
const (
	// TypeMemorySummarize summarises one ~500-token chunk of turns
	// (a level-1 node).
	TypeMemorySummarize = "memory:summarize"
	// TypeMemoryMerge merges up to five nodes of one level into a node of
	// the next.
	TypeMemoryMerge = "memory:merge"
	// MemoryQueueName is the queue memory tasks go to.
	MemoryQueueName = "memory"
)

const (
	memoryTaskTimeout  = 5 * time.Minute
	memoryTaskMaxRetry = 8
)

// ErrBadMemoryPayload marks a payload no retry can fix.
var ErrBadMemoryPayload = errors.New("bad memory task payload")

// MemoryPayload is the JSON payload of memory:summarize and memory:merge.
type MemoryPayload struct {
	TenantID       string `json:"tenant_id"`
	ConversationID string `json:"conversation_id"`
	// Epoch identifies the compression run; a task of an older run is
	// dropped, so a restarted run never has two chains of tasks.
	Epoch int64 `json:"epoch"`
	// TargetTokens is the size the conversation's summaries must fit.
	TargetTokens int `json:"target_tokens"`
	// Level and Seq name the node to write; ChildIDs the nodes (turns
	// for level 1) it covers, in order.
	Level    int     `json:"level"`
	Seq      int     `json:"seq"`
	ChildIDs []int64 `json:"child_ids"`
}

// Validate checks the fields every memory task needs.
func (p MemoryPayload) Validate() error {
	switch {
	case p.TenantID == "" || p.ConversationID == "":
		return fmt.Errorf("%w: tenant_id and conversation_id are required", ErrBadMemoryPayload)
	case p.Level < 1 || p.Seq < 0:
		return fmt.Errorf("%w: level %d seq %d", ErrBadMemoryPayload, p.Level, p.Seq)
	case len(p.ChildIDs) == 0:
		return fmt.Errorf("%w: no child_ids", ErrBadMemoryPayload)
	case p.TargetTokens < 1:
		return fmt.Errorf("%w: target_tokens %d", ErrBadMemoryPayload, p.TargetTokens)
	}
	return nil
}

// MemoryTaskType is the task type for a node of this level.
func MemoryTaskType(level int) string {
	if level == 1 {
		return TypeMemorySummarize
	}
	return TypeMemoryMerge
}

// MemoryTaskID is the task id of a node within a run: enqueueing the same
// node twice in one run is a no-op (asynq.ErrTaskIDConflict).
func MemoryTaskID(p MemoryPayload) string {
	return fmt.Sprintf("memory:%s:%d:%d:%d", p.ConversationID, p.Epoch, p.Level, p.Seq)
}

// NewMemoryTask returns the memory:summarize (level 1) or memory:merge
// task for p on the memory queue, with its task id, retries and a
// timeout; opts come after those defaults.
func NewMemoryTask(p MemoryPayload, opts ...asynq.Option) (*asynq.Task, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", MemoryTaskType(p.Level), err)
	}
	opts = append([]asynq.Option{
		asynq.Queue(MemoryQueueName),
		asynq.TaskID(MemoryTaskID(p)),
		asynq.MaxRetry(memoryTaskMaxRetry),
		asynq.Timeout(memoryTaskTimeout),
	}, opts...)
	return asynq.NewTask(MemoryTaskType(p.Level), b, opts...), nil
}

// ParseMemoryPayload decodes and validates a memory task's payload.
// Errors wrap ErrBadMemoryPayload.
func ParseMemoryPayload(b []byte) (MemoryPayload, error) {
	var p MemoryPayload
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%w: %w", ErrBadMemoryPayload, err)
	}
	return p, p.Validate()
}
