package jobs

import (
	"context"

	"github.com/hibiken/asynq"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mithub/mithub/pkg/tracing"
)

// TraceTasks is the task middleware that continues the enqueuer's trace:
// the trace context in the task's headers (tasks.New…Context) becomes the
// parent of a consumer span named by the task type.
func TraceTasks(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		ctx = tracing.FromHeaders(ctx, t.Headers())
		ctx, span := tracing.Start(ctx, t.Type(), trace.WithSpanKind(trace.SpanKindConsumer))
		defer span.End()
		if id, ok := asynq.GetTaskID(ctx); ok {
			span.SetAttributes(attribute.String("messaging.message.id", id))
		}
		if n, ok := asynq.GetRetryCount(ctx); ok {
			span.SetAttributes(attribute.Int("mithub.task.retried", n))
		}
		err := next.ProcessTask(ctx, t)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		return err
	})
}
