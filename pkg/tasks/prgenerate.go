package tasks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/tracing"
)

// TypePRGenerate builds the post-meeting report of one PR row.
const TypePRGenerate = "pr:generate"

// QueuePR is the queue pr:generate tasks go to.
const QueuePR = "pr"

// Options of pr:generate tasks.
const (
	// PRGenerateMaxRetry is how often a failed pr:generate is retried.
	PRGenerateMaxRetry = 5
	// PRGenerateTimeout bounds one attempt.
	PRGenerateTimeout = 10 * time.Minute
	// PRGenerateRetention keeps a finished task, and the PR document it
	// wrote as its result, readable in Redis for a day.
	PRGenerateRetention = 24 * time.Hour
)

// NewPRGenerateTask returns the pr:generate task for p. Its id is the PR id,
// so enqueueing the same PR again while the task is known to Redis fails
// with asynq.ErrTaskIDConflict instead of building the PR twice. opts are
// applied after the defaults (queue pr, PRGenerateMaxRetry,
// PRGenerateTimeout, PRGenerateRetention).
func NewPRGenerateTask(p *mithubv1.PRGenerateTask, opts ...asynq.Option) (*asynq.Task, error) {
	return NewPRGenerateTaskContext(context.Background(), p, opts...)
}

// NewPRGenerateTaskContext is NewPRGenerateTask carrying ctx's trace
// context in the task's headers (tracing.Headers), so pr-worker's spans
// continue the request's trace.
func NewPRGenerateTaskContext(ctx context.Context, p *mithubv1.PRGenerateTask, opts ...asynq.Option) (*asynq.Task, error) {
	if err := checkPRGenerate(p); err != nil {
		return nil, err
	}
	b, err := proto.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", TypePRGenerate, err)
	}
	opts = append([]asynq.Option{
		asynq.TaskID(p.GetPrId()),
		asynq.Queue(QueuePR),
		asynq.MaxRetry(PRGenerateMaxRetry),
		asynq.Timeout(PRGenerateTimeout),
		asynq.Retention(PRGenerateRetention),
	}, opts...)
	return newTask(ctx, TypePRGenerate, b, opts), nil
}

// newTask is a task whose headers carry ctx's trace context.
func newTask(ctx context.Context, typ string, payload []byte, opts []asynq.Option) *asynq.Task {
	if h := tracing.Headers(ctx); h != nil {
		return asynq.NewTaskWithHeaders(typ, payload, h, opts...)
	}
	return asynq.NewTask(typ, payload, opts...)
}

// ParsePRGenerateTask decodes a pr:generate payload. A payload that is not
// a PRGenerateTask or misses its ids is ErrInvalidPayload.
func ParsePRGenerateTask(payload []byte) (*mithubv1.PRGenerateTask, error) {
	p := &mithubv1.PRGenerateTask{}
	if err := proto.Unmarshal(payload, p); err != nil {
		return nil, fmt.Errorf("decode %s payload: %w: %v", TypePRGenerate, ErrInvalidPayload, err)
	}
	if err := checkPRGenerate(p); err != nil {
		return nil, err
	}
	return p, nil
}

func checkPRGenerate(p *mithubv1.PRGenerateTask) error {
	for _, f := range []struct{ name, v string }{
		{"pr_id", p.GetPrId()}, {"meeting_id", p.GetMeetingId()}, {"tenant_id", p.GetTenantId()},
	} {
		if !isUUID(f.v) {
			return fmt.Errorf("%s payload: %w: %s %q is not a UUID", TypePRGenerate, ErrInvalidPayload, f.name, f.v)
		}
	}
	if p.GetLastTranscriptId() < 0 {
		return fmt.Errorf("%s payload: %w: negative last_transcript_id", TypePRGenerate, ErrInvalidPayload)
	}
	return nil
}

func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// RetryDelay is the servers' backoff between attempts of a task: 2^n
// seconds for the n-th retry, capped at 5 minutes, with ±25% jitter so
// tasks that failed together do not retry together.
func RetryDelay(n int, _ error, _ *asynq.Task) time.Duration {
	d := time.Duration(1<<min(max(n, 0), 9)) * time.Second
	d = min(d, 5*time.Minute)
	jitter := time.Duration(rand.Int64N(int64(d)/2+1)) - d/4
	return d + jitter
}
