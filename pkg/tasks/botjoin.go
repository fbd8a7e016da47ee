package tasks

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hibiken/asynq"
	"google.golang.org/protobuf/proto"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
)

// TypeBotJoin asks a realtime-worker bot to join a LiveKit room and record
// its transcription into the room's meeting.
const TypeBotJoin = "bot:join"

// QueueBot is the queue realtime-worker replicas share; whichever replica
// takes a bot:join task joins the room.
const QueueBot = "bot"

// Options of bot:join tasks.
const (
	// BotJoinMaxRetry is how often a failed join is retried.
	BotJoinMaxRetry = 5
	// BotJoinTimeout bounds one attempt: resolving the meeting and
	// starting the room session, not the session itself.
	BotJoinTimeout = 30 * time.Second
	// MaxRoomNameLen is the longest room name a bot:join may carry.
	MaxRoomNameLen = 256
)

// NewBotJoinTask returns the bot:join task for p. opts are applied after
// the defaults (queue bot, BotJoinMaxRetry, BotJoinTimeout); callers that
// want one join per room event add asynq.TaskID.
func NewBotJoinTask(p *mithubv1.BotJoinTask, opts ...asynq.Option) (*asynq.Task, error) {
	if err := checkBotJoin(p); err != nil {
		return nil, err
	}
	b, err := proto.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", TypeBotJoin, err)
	}
	opts = append([]asynq.Option{
		asynq.Queue(QueueBot),
		asynq.MaxRetry(BotJoinMaxRetry),
		asynq.Timeout(BotJoinTimeout),
	}, opts...)
	return asynq.NewTask(TypeBotJoin, b, opts...), nil
}

// ParseBotJoinTask decodes a bot:join payload. A payload that is not a
// BotJoinTask, has no room name, or carries ids that are not UUIDs is
// ErrInvalidPayload.
func ParseBotJoinTask(payload []byte) (*mithubv1.BotJoinTask, error) {
	p := &mithubv1.BotJoinTask{}
	if err := proto.Unmarshal(payload, p); err != nil {
		return nil, fmt.Errorf("decode %s payload: %w: %v", TypeBotJoin, ErrInvalidPayload, err)
	}
	if err := checkBotJoin(p); err != nil {
		return nil, err
	}
	return p, nil
}

// checkBotJoin: the room name is required; the meeting and tenant ids are
// optional (the worker finds or creates the room's active meeting under
// its own tenant) but must be UUIDs when set.
func checkBotJoin(p *mithubv1.BotJoinTask) error {
	room := p.GetRoomName()
	switch {
	case strings.TrimSpace(room) == "":
		return fmt.Errorf("%s payload: %w: room_name is required", TypeBotJoin, ErrInvalidPayload)
	case len(room) > MaxRoomNameLen:
		return fmt.Errorf("%s payload: %w: room_name is longer than %d bytes", TypeBotJoin, ErrInvalidPayload, MaxRoomNameLen)
	case !utf8.ValidString(room):
		return fmt.Errorf("%s payload: %w: room_name is not valid UTF-8", TypeBotJoin, ErrInvalidPayload)
	}
	for _, f := range []struct{ name, v string }{
		{"meeting_id", p.GetMeetingId()}, {"tenant_id", p.GetTenantId()},
	} {
		if f.v != "" && !isUUID(f.v) {
			return fmt.Errorf("%s payload: %w: %s %q is not a UUID", TypeBotJoin, ErrInvalidPayload, f.name, f.v)
		}
	}
	return nil
}
