package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/tracing"
)

// traceInMemory makes the global tracer provider record into an
// in-memory exporter for the test.
func traceInMemory(t *testing.T) (*tracetest.InMemoryExporter, *sdktrace.TracerProvider) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := tracing.NewProvider(sdktrace.NewSimpleSpanProcessor(exp), "agent-api")
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		otel.SetTracerProvider(prev)
		_ = tp.Shutdown(context.Background())
	})
	return exp, tp
}

// traceparent is the W3C header of ctx's span.
func traceparent(ctx context.Context) string {
	h := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, h)
	return h["traceparent"]
}

// waitSpan polls the exporter for a span named name in trace id.
func waitSpan(t *testing.T, exp *tracetest.InMemoryExporter, id trace.TraceID, name string) tracetest.SpanStub {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, s := range exp.GetSpans() {
			if s.Name == name && s.SpanContext.TraceID() == id {
				return s
			}
		}
		if time.Now().After(deadline) {
			var names []string
			for _, s := range exp.GetSpans() {
				names = append(names, s.Name+"@"+s.SpanContext.TraceID().String()[:8])
			}
			t.Fatalf("no span %q in trace %s; spans: %v", name, id, names)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// One trace runs from a client's posted segments (its traceparent) through
// agent-api's request to the background save of their topic; another from
// generate-pr to the queued task, whose headers carry it to pr-worker.
func TestTraceFromPostedSegmentToTopicSave(t *testing.T) {
	exp, tp := traceInMemory(t)
	h := newPRHarness(t)
	key := h.key("acme")
	m := h.createMeeting(key)

	ctx, client := tp.Tracer("test").Start(context.Background(), "realtime-worker sync")
	body, _ := json.Marshal(map[string]any{"utterances": meetingLines("tr", 25)})
	r := h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/utterances", key, body, "traceparent", traceparent(ctx))
	client.End()
	if r.status != http.StatusOK {
		t.Fatalf("post = %d %s", r.status, r.body)
	}
	id := client.SpanContext().TraceID()
	server := waitSpan(t, exp, id, "POST /v1/meetings/:id/utterances")
	if server.Parent.SpanID() != client.SpanContext().SpanID() || server.SpanKind != trace.SpanKindServer {
		t.Errorf("server span's parent = %s, want the client's %s", server.Parent.SpanID(), client.SpanContext().SpanID())
	}
	save := waitSpan(t, exp, id, "save topics")
	if save.Parent.SpanID() != server.SpanContext.SpanID() {
		t.Errorf("topic save's parent = %s, want the request's span %s", save.Parent.SpanID(), server.SpanContext.SpanID())
	}

	ctx, client = tp.Tracer("test").Start(context.Background(), "mithubctl pr")
	r = h.do(http.MethodPost, "/v1/meetings/"+m.ID+"/generate-pr?wait=false", key, nil, "traceparent", traceparent(ctx))
	client.End()
	var a prAccepted
	r.decode(t, &a)
	if r.status != http.StatusAccepted {
		t.Fatalf("generate-pr = %d %s", r.status, r.body)
	}
	gen := waitSpan(t, exp, client.SpanContext().TraceID(), "POST /v1/meetings/:id/generate-pr")
	info, err := h.insp.GetTaskInfo(tasks.QueuePR, a.PRID)
	if err != nil {
		t.Fatal(err)
	}
	got := tracing.FromHeaders(context.Background(), info.Headers)
	if sc := trace.SpanContextFromContext(got); sc.TraceID() != client.SpanContext().TraceID() || sc.SpanID() != gen.SpanContext.SpanID() {
		t.Fatalf("task headers %v carry %s/%s, want the request span %s/%s", info.Headers, sc.TraceID(), sc.SpanID(),
			client.SpanContext().TraceID(), gen.SpanContext.SpanID())
	}
}
