package jobs_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/services/pr-worker/internal/jobs"
)

func TestMemoryTasksWithBadPayloadsAreNotRetried(t *testing.T) {
	m, err := jobs.NewMemory(convmemory.Config{}, jobs.MemoryLLM{Provider: "local"}, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	mux := asynq.NewServeMux()
	m.Register(mux)
	tests := []struct {
		name string
		typ  string
		give string
	}{
		{"not json", tasks.TypeMemorySummarize, "x"},
		{"no conversation", tasks.TypeMemorySummarize, `{"tenant_id":"t","level":1,"seq":0,"child_ids":[1],"target_tokens":10}`},
		{"level 0", tasks.TypeMemoryMerge, `{"tenant_id":"t","conversation_id":"c","level":0,"seq":0,"child_ids":[1],"target_tokens":10}`},
		{"no children", tasks.TypeMemoryMerge, `{"tenant_id":"t","conversation_id":"c","level":2,"seq":0,"target_tokens":10}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mux.ProcessTask(context.Background(), asynq.NewTask(tt.typ, []byte(tt.give)))
			if !errors.Is(err, asynq.SkipRetry) {
				t.Errorf("ProcessTask = %v, want an error wrapping asynq.SkipRetry", err)
			}
		})
	}
}
