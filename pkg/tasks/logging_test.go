package tasks_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/tasks"
)

func TestLogLevel(t *testing.T) {
	tests := []struct {
		give slog.Level
		want asynq.LogLevel
	}{
		{slog.LevelDebug, asynq.DebugLevel},
		{slog.LevelInfo, asynq.InfoLevel},
		{slog.LevelWarn, asynq.WarnLevel},
		{slog.LevelError, asynq.ErrorLevel},
	}
	for _, tt := range tests {
		if got := tasks.LogLevel(tt.give); got != tt.want {
			t.Errorf("LogLevel(%v) = %v, want %v", tt.give, got, tt.want)
		}
	}
}

// A task that asynq archives is logged as an error, a revoked one as a
// warning.
func TestErrorHandlerLevels(t *testing.T) {
	tests := []struct {
		give error
		want string
	}{
		{fmt.Errorf("meeting gone: %w", asynq.RevokeTask), "level=WARN msg=\"task failed, revoked\""},
		{fmt.Errorf("bad payload: %w", asynq.SkipRetry), "level=ERROR msg=\"task failed, archived\""},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		h := tasks.ErrorHandler(slog.New(slog.NewTextHandler(&buf, nil)))
		h.HandleError(context.Background(), asynq.NewTask("pr:generate", nil), tt.give)
		if !strings.Contains(buf.String(), tt.want) || !strings.Contains(buf.String(), "task_type=pr:generate") {
			t.Errorf("error %v logged as %q, want %q", tt.give, buf.String(), tt.want)
		}
	}
}
