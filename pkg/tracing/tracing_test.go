package tracing

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestEnabledByStandardVariables(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"}, false},
	} {
		if got := Enabled(env(tc.env)); got != tc.want {
			t.Errorf("Enabled(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

func TestOffByDefaultStillPropagates(t *testing.T) {
	shutdown, err := Setup(context.Background(), "test", env(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown(context.Background())
	if _, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider); ok {
		t.Fatal("tracing is on without OTEL_* variables")
	}
	// A remote parent passes through a no-op span.
	exp := tracetest.NewInMemoryExporter()
	tp := NewProvider(sdktrace.NewSimpleSpanProcessor(exp), "test")
	ctx, span := tp.Tracer("t").Start(context.Background(), "root")
	h := Headers(ctx)
	span.End()
	got, inner := Start(FromHeaders(context.Background(), h), "child")
	inner.End()
	if trace.SpanContextFromContext(got).TraceID() != span.SpanContext().TraceID() {
		t.Fatalf("headers %v did not carry the trace", h)
	}
	if Headers(context.Background()) != nil {
		t.Error("headers without a span")
	}
}
