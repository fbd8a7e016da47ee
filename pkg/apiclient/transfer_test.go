package apiclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

func TestImportStreamsAMultipartUpload(t *testing.T) {
	var got struct {
		file, name, format, project, started, trace string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/meetings/import" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "bad request line", http.StatusBadRequest)
			return
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f, fh, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(f)
		got.file, got.name = string(b), fh.Filename
		got.format, got.project, got.started = r.FormValue("format"), r.FormValue("project"), r.FormValue("started_at")
		got.trace = r.Header.Get("traceparent")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"meeting_id":"m1","format":"vtt","created":true,"segments":2,"inserted":2,"duplicates":0,"meeting":{"id":"m1","status":"ended"}}`)
	}))
	defer srv.Close()
	c := New(srv.URL, "k")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	res, err := c.Import(ctx, ImportRequest{File: strings.NewReader("WEBVTT\n\n00:01.000 --> 00:02.000\nA: hi\n"), Name: "a.vtt",
		Format: "vtt", Project: "haru", StartedAt: time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if res.MeetingID != "m1" || !res.Created || res.Segments != 2 || res.Meeting.Status != "ended" {
		t.Errorf("result = %+v", res)
	}
	if !strings.HasPrefix(got.file, "WEBVTT") || got.name != "a.vtt" || got.format != "vtt" || got.project != "haru" ||
		got.started != "2026-03-12T09:00:00Z" {
		t.Errorf("server got %+v", got)
	}
	want := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, want)
	if got.trace == "" || got.trace != want["traceparent"] {
		t.Errorf("traceparent = %q, want %q", got.trace, want["traceparent"])
	}
}

func TestExportWritesTheBodyAndReportsErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/meetings/m1/transcript":
			if r.URL.Query().Get("format") != "srt" {
				http.Error(w, "format", http.StatusBadRequest)
				return
			}
			io.WriteString(w, "1\n00:00:01,000 --> 00:00:02,000\nA: hi\n")
		case "/v1/prs/p1":
			io.WriteString(w, "# PR\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":"not_found","message":"meeting not found"}}`)
		}
	}))
	defer srv.Close()
	c := New(srv.URL, "k")
	var b bytes.Buffer
	if err := c.ExportTranscript(context.Background(), "m1", "srt", &b); err != nil || !strings.Contains(b.String(), "A: hi") {
		t.Fatalf("transcript = %q %v", b.String(), err)
	}
	b.Reset()
	if err := c.ExportPR(context.Background(), "p1", "md", &b); err != nil || b.String() != "# PR\n" {
		t.Fatalf("PR = %q %v", b.String(), err)
	}
	var ae *APIError
	if err := c.ExportTranscript(context.Background(), "nope", "vtt", io.Discard); !errors.As(err, &ae) || ae.Status != 404 || ae.Code != "not_found" {
		t.Fatalf("missing meeting: %v", err)
	}
	if err := c.ExportTranscript(context.Background(), "", "vtt", io.Discard); !errors.Is(err, ErrNoMeetingID) {
		t.Fatalf("empty id: %v", err)
	}
}
