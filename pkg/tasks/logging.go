package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"
)

// Logger adapts slog to asynq's Logger, for asynq.Config.Logger.
func Logger(log *slog.Logger) asynq.Logger { return asynqLogger{log: log} }

type asynqLogger struct {
	log *slog.Logger
}

func (l asynqLogger) Debug(args ...any) { l.log.Debug(fmt.Sprint(args...)) }
func (l asynqLogger) Info(args ...any)  { l.log.Info(fmt.Sprint(args...)) }
func (l asynqLogger) Warn(args ...any)  { l.log.Warn(fmt.Sprint(args...)) }
func (l asynqLogger) Error(args ...any) { l.log.Error(fmt.Sprint(args...)) }

// Fatal logs at error level and does not exit: only main ends the process,
// after an ordered shutdown. asynq itself never calls Fatal.
func (l asynqLogger) Fatal(args ...any) { l.log.Error(fmt.Sprint(args...), "fatal", true) }

// LogLevel maps a slog level onto asynq's, so asynq skips formatting
// messages that slog would drop.
func LogLevel(l slog.Level) asynq.LogLevel {
	switch {
	case l <= slog.LevelDebug:
		return asynq.DebugLevel
	case l <= slog.LevelInfo:
		return asynq.InfoLevel
	case l <= slog.LevelWarn:
		return asynq.WarnLevel
	default:
		return asynq.ErrorLevel
	}
}

// ErrorHandler is the one place a failed task is logged: at error level
// when asynq archives it, at warn level otherwise.
func ErrorHandler(log *slog.Logger) asynq.ErrorHandler {
	return asynq.ErrorHandlerFunc(func(ctx context.Context, task *asynq.Task, err error) {
		id, _ := asynq.GetTaskID(ctx)
		queue, _ := asynq.GetQueueName(ctx)
		retried, _ := asynq.GetRetryCount(ctx)
		maxRetry, _ := asynq.GetMaxRetry(ctx)
		level, msg := slog.LevelWarn, "task failed, will retry"
		switch {
		case errors.Is(err, asynq.RevokeTask):
			msg = "task failed, revoked"
		case retried >= maxRetry || errors.Is(err, asynq.SkipRetry):
			level, msg = slog.LevelError, "task failed, archived"
		}
		log.Log(ctx, level, msg, "task_type", task.Type(), "task_id", id, "queue", queue,
			"retried", retried, "max_retry", maxRetry, "err", err)
	})
}
