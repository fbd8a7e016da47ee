package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypePing is the worker's liveness probe: the handler writes the nonce
// back as the task's result.
const TypePing = "system:ping"

// pingTimeout bounds one ping.
const pingTimeout = 10 * time.Second

// PingPayload is the JSON payload of a system:ping task.
type PingPayload struct {
	Nonce string `json:"nonce"`
}

// NewPingTask returns a system:ping task carrying nonce. It is not retried
// and times out after 10s; opts are applied after those defaults. Keep the
// result with asynq.Retention to read it back.
func NewPingTask(nonce string, opts ...asynq.Option) (*asynq.Task, error) {
	b, err := json.Marshal(PingPayload{Nonce: nonce})
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", TypePing, err)
	}
	opts = append([]asynq.Option{asynq.MaxRetry(0), asynq.Timeout(pingTimeout)}, opts...)
	return asynq.NewTask(TypePing, b, opts...), nil
}

// PingHandler answers system:ping.
type PingHandler struct{}

// ProcessTask writes the payload's nonce as the task result.
func (PingHandler) ProcessTask(_ context.Context, t *asynq.Task) error {
	var p PingPayload
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("decode %s payload: %w", TypePing, errors.Join(err, asynq.SkipRetry))
	}
	if p.Nonce == "" {
		return fmt.Errorf("%s payload has no nonce: %w", TypePing, asynq.SkipRetry)
	}
	if _, err := t.ResultWriter().Write([]byte(p.Nonce)); err != nil {
		return fmt.Errorf("write %s result: %w", TypePing, err)
	}
	return nil
}
