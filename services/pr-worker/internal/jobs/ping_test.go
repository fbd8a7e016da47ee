package jobs_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/services/pr-worker/internal/jobs"
)

func TestPingRejectsBadPayloadsWithoutRetry(t *testing.T) {
	tests := []struct {
		name string
		give []byte
	}{
		{"not json", []byte("nonce")},
		{"no nonce", []byte(`{}`)},
		{"empty nonce", []byte(`{"nonce":""}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := jobs.PingHandler{}.ProcessTask(context.Background(), asynq.NewTask(jobs.TypePing, tt.give))
			if !errors.Is(err, asynq.SkipRetry) {
				t.Errorf("ProcessTask(%q) = %v, want an error wrapping asynq.SkipRetry", tt.give, err)
			}
		})
	}
}

func TestNewPingTask(t *testing.T) {
	task, err := jobs.NewPingTask("abc")
	if err != nil {
		t.Fatal(err)
	}
	if task.Type() != jobs.TypePing || string(task.Payload()) != `{"nonce":"abc"}` {
		t.Errorf("task = %s %s", task.Type(), task.Payload())
	}
}
