package httpapi

import (
	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mithub/mithub/pkg/tracing"
)

// fiberCarrier reads and writes trace headers of a Fiber request.
type fiberCarrier struct{ c *fiber.Ctx }

func (f fiberCarrier) Get(key string) string { return f.c.Get(key) }
func (f fiberCarrier) Set(key, value string) { f.c.Request().Header.Set(key, value) }
func (f fiberCarrier) Keys() []string {
	var keys []string
	f.c.Request().Header.VisitAll(func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}

// traceRequests continues the caller's trace (W3C traceparent) with a
// server span named by the matched route, and hands the span's context
// to the handlers through the user context.
func traceRequests(c *fiber.Ctx) error {
	ctx := tracing.Extract(c.UserContext(), fiberCarrier{c})
	ctx, span := tracing.Start(ctx, c.Method()+" "+c.Path(), trace.WithSpanKind(trace.SpanKindServer))
	defer span.End()
	c.SetUserContext(ctx)
	err := c.Next()
	if r := c.Route(); r != nil && r.Path != "" && r.Path != "/" {
		span.SetName(c.Method() + " " + r.Path)
	}
	status := c.Response().StatusCode()
	if err != nil {
		status = classify(err).Status
		span.RecordError(err)
	}
	span.SetAttributes(attribute.String("http.request.method", c.Method()), attribute.Int("http.response.status_code", status),
		attribute.String("mithub.request_id", requestID(c)))
	if status >= 500 {
		span.SetStatus(codes.Error, "")
	}
	return err
}
