package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/llm/openai"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/tokens"
)

// MemoryLLM is the chat provider memory summaries use: "local" (the
// offline extractive summarizer) or "openai" (an OpenAI-compatible server).
type MemoryLLM struct {
	Provider, BaseURL, APIKey, Model string
	Timeout                          time.Duration
}

// Memory handles memory:summarize and memory:merge through convmemory.Queue.
type Memory struct {
	q *convmemory.Queue
}

// NewMemory builds the memory engine on st with the configured
// summarizer; tasks it plans are enqueued on rc.
func NewMemory(cfg convmemory.Config, chat MemoryLLM, st convmemory.Store, rc redis.UniversalClient, log *slog.Logger) (*Memory, error) {
	count, err := tokens.ForModel(chat.Model)
	if err != nil {
		return nil, fmt.Errorf("token counter: %w", err)
	}
	cfg = cfg.WithDefaults()
	var sum convmemory.Summarizer = convmemory.NewLocal()
	if chat.Provider == "openai" {
		c, err := openai.New(openai.Config{BaseURL: chat.BaseURL, APIKey: chat.APIKey, Model: chat.Model, Timeout: chat.Timeout})
		if err != nil {
			return nil, fmt.Errorf("LLM provider: %w", err)
		}
		sum = convmemory.Chat{Chat: c, Model: chat.Model, SummaryTokens: cfg.SummaryTokens, MergeTokens: cfg.MergeTokens}
	}
	eng := convmemory.NewEngine(st, count, sum, cfg)
	q := convmemory.NewQueue(eng, asynq.NewClientFromRedisClient(rc), rc, convmemory.QueueOptions{QueueName: QueueMemory},
		log.With("component", "memory"))
	return &Memory{q: q}, nil
}

// Register routes the memory task types to the handler.
func (m *Memory) Register(mux *asynq.ServeMux) {
	mux.Handle(tasks.TypeMemorySummarize, m.q)
	mux.Handle(tasks.TypeMemoryMerge, m.q)
}

// Resume restarts the compressions recorded as running (a crash left
// their in-flight tasks orphaned until their leases expire).
func (m *Memory) Resume(ctx context.Context) (int, error) {
	return m.q.Resume(ctx)
}
