// Package tracing sets up OpenTelemetry tracing for MitHub's services and
// carries W3C trace context across their edges (docs/architecture.md
// §10): HTTP headers between realtime-worker, mithubctl and agent-api,
// and Asynq task headers between agent-api and pr-worker.
//
// Tracing is off unless the standard OTEL_* variables turn it on:
// OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
// OTEL_SDK_DISABLED=true turns it off again. The OTLP/HTTP exporter
// reads its own OTEL_EXPORTER_OTLP_* settings (endpoint, headers,
// protocol, timeout); OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name
// the service. Off, the global tracer is OpenTelemetry's no-op and a span
// costs nothing; trace context already on a request or task is still
// passed on.
package tracing

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// Name is the instrumentation scope of MitHub's spans.
const Name = "github.com/mithub/mithub"

// Enabled reports whether the OTEL_* variables ask for traces.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))) {
	case "otlp":
		return true
	case "none":
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs the global tracer provider and the W3C propagator when
// the OTEL_* variables enable tracing, exporting over OTLP/HTTP; service
// is the default service.name. It returns the function that flushes and
// stops it (a no-op when tracing is off).
func Setup(ctx context.Context, service string, getenv func(string) string) (func(context.Context) error, error) {
	otel.SetTextMapPropagator(propagation.TraceContext{})
	if !Enabled(getenv) {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	tp := NewProvider(sdktrace.NewBatchSpanProcessor(exp), service)
	otel.SetTracerProvider(tp)
	return tp.Shutdown, nil
}

// NewProvider is a tracer provider that sends every span to sp, for
// service (OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it).
// Tests pass a simple span processor over an in-memory exporter.
func NewProvider(sp sdktrace.SpanProcessor, service string) *sdktrace.TracerProvider {
	res, err := resource.Merge(resource.NewSchemaless(semconv.ServiceName(service)), resource.Environment())
	if err != nil {
		res = resource.NewSchemaless(semconv.ServiceName(service))
	}
	return sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sp), sdktrace.WithResource(res))
}

// Start starts a span with MitHub's tracer from the global provider.
func Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	return otel.Tracer(Name).Start(ctx, name, opts...)
}

// propagator is W3C trace context, used for injection and extraction
// whatever the global propagator is.
var propagator = propagation.TraceContext{}

// Inject writes ctx's trace context (traceparent, tracestate) into h;
// nothing when ctx has no valid span.
func Inject(ctx context.Context, h propagation.TextMapCarrier) { propagator.Inject(ctx, h) }

// Extract returns ctx with the remote span context found in h, if any.
func Extract(ctx context.Context, h propagation.TextMapCarrier) context.Context {
	return propagator.Extract(ctx, h)
}

// Headers is ctx's trace context as a header map (nil without a span),
// for Asynq task headers.
func Headers(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	m := propagation.MapCarrier{}
	propagator.Inject(ctx, m)
	return m
}

// FromHeaders returns ctx with the trace context of task headers h.
func FromHeaders(ctx context.Context, h map[string]string) context.Context {
	if len(h) == 0 {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier(h))
}

// shutdownTimeout bounds the final flush of spans.
const shutdownTimeout = 5 * time.Second

// Run sets tracing up for service (Setup, from the environment), runs fn
// and flushes the spans when it returns.
func Run(ctx context.Context, service string, fn func(context.Context) error) error {
	shutdown, err := Setup(ctx, service, os.Getenv)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		_ = shutdown(sctx)
	}()
	return fn(ctx)
}
