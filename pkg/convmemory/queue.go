package convmemory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/tasks"
)

// Enqueuer puts tasks on the queue; *asynq.Client implements it.
type Enqueuer interface {
	EnqueueContext(ctx context.Context, task *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error)
}

// DefaultJobsKey is the Redis hash of running compressions.
const DefaultJobsKey = "mithub:memory:jobs"

// Queue runs units as Asynq tasks (memory:summarize, memory:merge) and is
// also their handler. The running jobs are kept in a Redis hash
// (conversation id → job), so any process can start a job and any
// pr-worker can continue it. Each finished unit plans the next ones and
// enqueues the first MaxInFlight units that are not done; task ids make
// that idempotent, so at most MaxInFlight tasks of a job are queued or
// running. A task of an older run of the job (another epoch) is dropped.
type Queue struct {
	e     *Engine
	q     Enqueuer
	rdb   redis.UniversalClient
	key   string
	queue string
	log   *slog.Logger
}

// QueueOptions name where a Queue keeps its state. Tests use their own.
type QueueOptions struct {
	// JobsKey is the Redis hash of running jobs (default DefaultJobsKey).
	JobsKey string
	// QueueName is the Asynq queue (default tasks.MemoryQueueName).
	QueueName string
}

// NewQueue returns a Queue.
func NewQueue(e *Engine, q Enqueuer, rdb redis.UniversalClient, opts QueueOptions, log *slog.Logger) *Queue {
	if opts.JobsKey == "" {
		opts.JobsKey = DefaultJobsKey
	}
	if opts.QueueName == "" {
		opts.QueueName = tasks.MemoryQueueName
	}
	return &Queue{e: e, q: q, rdb: rdb, key: opts.JobsKey, queue: opts.QueueName, log: log}
}

// Start records job as the conversation's running compression with a new
// epoch and enqueues its first units.
func (q *Queue) Start(ctx context.Context, job Job) error {
	job.Epoch = time.Now().UnixNano()
	b, err := json.Marshal(job)
	if err != nil {
		return fmt.Errorf("encode job: %w", err)
	}
	if err := q.rdb.HSet(ctx, q.key, job.ConversationID, b).Err(); err != nil {
		return fmt.Errorf("record memory job: %w", err)
	}
	return q.advance(ctx, job)
}

// Running returns the conversation's running job, if any.
func (q *Queue) Running(ctx context.Context, conversationID string) (Job, bool, error) {
	b, err := q.rdb.HGet(ctx, q.key, conversationID).Bytes()
	if errors.Is(err, redis.Nil) {
		return Job{}, false, nil
	}
	if err != nil {
		return Job{}, false, fmt.Errorf("read memory job: %w", err)
	}
	var j Job
	if err := json.Unmarshal(b, &j); err != nil {
		return Job{}, false, fmt.Errorf("decode memory job: %w", err)
	}
	return j, true, nil
}

// Resume restarts every recorded job with a new epoch; pr-worker calls it
// on start, so tasks orphaned by a crash (still marked active until
// their lease expires) do not hold the job up. It returns how many jobs
// it resumed.
func (q *Queue) Resume(ctx context.Context) (int, error) {
	all, err := q.rdb.HGetAll(ctx, q.key).Result()
	if err != nil {
		return 0, fmt.Errorf("list memory jobs: %w", err)
	}
	n := 0
	for conv, raw := range all {
		var j Job
		if err := json.Unmarshal([]byte(raw), &j); err != nil {
			q.log.Warn("dropping unreadable memory job", "conversation_id", conv, "err", err)
			q.rdb.HDel(ctx, q.key, conv)
			continue
		}
		if err := q.Start(ctx, j); err != nil {
			return n, fmt.Errorf("resume memory job %s: %w", conv, err)
		}
		n++
	}
	return n, nil
}

// advance enqueues the job's next units, or clears the job when its plan
// is done.
func (q *Queue) advance(ctx context.Context, job Job) error {
	p, err := q.e.Plan(ctx, job)
	if err != nil {
		return err
	}
	if p.Done {
		return q.finish(ctx, job)
	}
	for _, u := range p.Pending[:min(len(p.Pending), q.e.cfg.MaxInFlight)] {
		t, err := tasks.NewMemoryTask(tasks.MemoryPayload{
			TenantID: job.TenantID, ConversationID: job.ConversationID, Epoch: job.Epoch,
			TargetTokens: job.TargetTokens, Level: u.Level, Seq: u.Seq, ChildIDs: u.ChildIDs,
		}, asynq.Queue(q.queue))
		if err != nil {
			return err
		}
		_, err = q.q.EnqueueContext(ctx, t)
		if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
			return fmt.Errorf("enqueue %s: %w", t.Type(), err)
		}
	}
	return nil
}

// finishScript deletes the job only if it is still the same run.
var finishScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`)

func (q *Queue) finish(ctx context.Context, job Job) error {
	b, err := json.Marshal(job)
	if err != nil {
		return fmt.Errorf("encode job: %w", err)
	}
	if err := finishScript.Run(ctx, q.rdb, []string{q.key}, job.ConversationID, string(b)).Err(); err != nil {
		return fmt.Errorf("finish memory job: %w", err)
	}
	return nil
}

// ProcessTask handles memory:summarize and memory:merge: it writes the
// node (unless stored already) and enqueues what became ready. Bad
// payloads are not retried.
func (q *Queue) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := tasks.ParseMemoryPayload(t.Payload())
	if err != nil {
		return fmt.Errorf("%s: %w", t.Type(), errors.Join(err, asynq.SkipRetry))
	}
	job, ok, err := q.Running(ctx, p.ConversationID)
	if err != nil {
		return err
	}
	if !ok || job.Epoch != p.Epoch {
		q.log.Debug("dropping memory task of a finished or restarted run",
			"conversation_id", p.ConversationID, "level", p.Level, "seq", p.Seq)
		return nil
	}
	if _, err := q.e.Process(ctx, job, Unit{Level: p.Level, Seq: p.Seq, ChildIDs: p.ChildIDs}); err != nil {
		if errors.Is(err, ErrInvalid) {
			return errors.Join(err, asynq.SkipRetry)
		}
		return err
	}
	return q.advance(ctx, job)
}
