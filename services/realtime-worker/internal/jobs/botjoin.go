package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/services/realtime-worker/internal/room"
)

// Joiner joins rooms.
type Joiner interface {
	Join(ctx context.Context, room, meetingID string) (string, error)
}

// BotJoinHandler handles bot:join: it starts the room session (or finds it
// running) and returns; the session outlives the task.
type BotJoinHandler struct {
	joiner   Joiner
	tenantID string
}

// NewBotJoinHandler returns the handler for a worker writing under
// tenantID.
func NewBotJoinHandler(j Joiner, tenantID string) *BotJoinHandler {
	return &BotJoinHandler{joiner: j, tenantID: tenantID}
}

// ProcessTask implements asynq.Handler.
func (h *BotJoinHandler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := tasks.ParseBotJoinTask(t.Payload())
	if err != nil {
		return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
	}
	if p.GetTenantId() != "" && p.GetTenantId() != h.tenantID {
		return fmt.Errorf("bot:join for tenant %s, this worker writes for %s: %w", p.GetTenantId(), h.tenantID, asynq.SkipRetry)
	}
	_, err = h.joiner.Join(ctx, p.GetRoomName(), p.GetMeetingId())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrInvalid), errors.Is(err, room.ErrMeetingEnded):
		return fmt.Errorf("join %s: %w: %w", p.GetRoomName(), err, asynq.SkipRetry)
	}
	return fmt.Errorf("join %s: %w", p.GetRoomName(), err)
}
