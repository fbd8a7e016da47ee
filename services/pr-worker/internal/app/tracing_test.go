package app_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"
	"github.com/mithub/mithub/pkg/meetingpr"
	"github.com/mithub/mithub/pkg/store/storetest"
	"github.com/mithub/mithub/pkg/tasks"
	"github.com/mithub/mithub/pkg/tracing"
	"github.com/mithub/mithub/pkg/webhook"
)

// The trace of a generate-pr request continues in pr-worker through the
// task's headers: pr:generate, the PR's save, and the pr.ready delivery
// it queues are all in it.
func TestTraceFromGeneratePRToStoredPR(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := tracing.NewProvider(sdktrace.NewSimpleSpanProcessor(exp), "pr-worker")
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); _ = tp.Shutdown(context.Background()) })

	rs := startRedis(t)
	dsn, schema := storetest.NewSchema(t)
	st := openStore(t, dsn, schema)
	tn, m, rows := seedMeeting(t, st, "acme", 20)
	rcv := newReceiver(t, func(string, int) int { return http.StatusOK })
	addWebhook(t, st, tn.ID, rcv.srv.URL, webhook.PRReady)
	start(t, workerConfig(t, dsn, schema, rs.url(), map[string]string{"MITHUB_WEBHOOK_ALLOW_PRIVATE": "1"}))
	client := asynq.NewClient(rs.clientOpt(t))
	t.Cleanup(func() { _ = client.Close() })

	// As agent-api enqueues it inside the generate-pr request's span.
	ctx, request := tp.Tracer("test").Start(context.Background(), "POST /v1/meetings/:id/generate-pr")
	pr, _, err := st.CreatePR(ctx, tn.ID, meetingpr.NewPR{MeetingID: m.ID, Project: "default", LastTranscriptID: rows[len(rows)-1].ID})
	if err != nil {
		t.Fatal(err)
	}
	task, err := tasks.NewPRGenerateTaskContext(ctx, &mithubv1.PRGenerateTask{MeetingId: m.ID, PrId: pr.ID, TenantId: tn.ID,
		LastTranscriptId: rows[len(rows)-1].ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Enqueue(task); err != nil {
		t.Fatal(err)
	}
	request.End()
	if got := waitPR(t, st, tn.ID, pr.ID, time.Minute); got.Status != meetingpr.Succeeded {
		t.Fatalf("PR %s", got.Status)
	}
	rcv.waitProcessed(1, 30*time.Second)

	id := request.SpanContext().TraceID()
	find := func(name string) tracetest.SpanStub {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			for _, s := range exp.GetSpans() {
				if s.Name == name && s.SpanContext.TraceID() == id {
					return s
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no span %q in the request's trace (%d spans recorded)", name, len(exp.GetSpans()))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	gen := find(tasks.TypePRGenerate)
	if gen.Parent.SpanID() != request.SpanContext().SpanID() || gen.SpanKind != trace.SpanKindConsumer {
		t.Errorf("pr:generate's parent = %s, want the request's %s", gen.Parent.SpanID(), request.SpanContext().SpanID())
	}
	if save := find("store PR"); save.Parent.SpanID() != gen.SpanContext.SpanID() {
		t.Errorf("store PR's parent = %s, want pr:generate's %s", save.Parent.SpanID(), gen.SpanContext.SpanID())
	}
	if d := find(tasks.TypeWebhookDeliver); d.Parent.SpanID() != gen.SpanContext.SpanID() {
		t.Errorf("webhook:deliver's parent = %s, want pr:generate's %s", d.Parent.SpanID(), gen.SpanContext.SpanID())
	}
}
