package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log"
	"log/slog"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/logging"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		give string
		want string
	}{
		{"postgres://mithub:s3cr3t@db:5432/mithub?sslmode=disable", "postgres://mithub:[redacted]@db:5432/mithub?sslmode=disable"},
		{"redis://:hunter2@redis:6379/0", "redis://:[redacted]@redis:6379/0"},
		{"dial redis://default:p%40ss@r:6379: refused", "dial redis://default:[redacted]@r:6379: refused"},
		{"host=db user=mithub password=s3cr3t dbname=x", "host=db user=mithub password=[redacted] dbname=x"},
		{"host=db password='with space' dbname=x", "host=db password=[redacted] dbname=x"},
		{"Authorization: Bearer mh_abcDEF123-_", "Authorization: Bearer [redacted]"},
		{"postgres://mithub@db/mithub", "postgres://mithub@db/mithub"},
		{"https://api.example.com/v1", "https://api.example.com/v1"},
		{"회의 비밀번호 없음 password", "회의 비밀번호 없음 password"},
	}
	for _, tt := range tests {
		if got := logging.Redact(tt.give); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

func TestLoggerRedactsSecrets(t *testing.T) {
	var buf bytes.Buffer
	log := logging.New(&buf, slog.LevelDebug, "test")
	log.Info("connecting to postgres://u:pw-in-msg@db/x",
		"url", "postgres://u:pw-in-attr@db/x",
		"err", errors.New("dial redis://:pw-in-err@r:6379: refused"),
		"api_key", "sk-live-123", "livekit_api_secret", "lk-secret", "key", "mh_key",
		"tokens", 42, "meeting_id", "m-1", "empty_secret", "")
	out := buf.String()
	for _, secret := range []string{"pw-in-msg", "pw-in-attr", "pw-in-err", "sk-live-123", "lk-secret", "mh_key"} {
		if strings.Contains(out, secret) {
			t.Errorf("log line leaks %q: %s", secret, out)
		}
	}
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["tokens"] != 42.0 || rec["meeting_id"] != "m-1" || rec["empty_secret"] != "" || rec["service"] != "test" {
		t.Errorf("ordinary attributes changed: %v", rec)
	}
}

func TestContextHandlerAddsRequestID(t *testing.T) {
	var buf bytes.Buffer
	log := logging.New(&buf, slog.LevelDebug, "test").With("component", "x")
	ctx := logging.WithRequestID(context.Background(), "req-1")
	log.InfoContext(ctx, "with context")
	log.Info("without context")
	log.InfoContext(ctx, "explicit", "request_id", "req-explicit")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{"req-1", "", "req-explicit"}
	for i, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		got, _ := rec["request_id"].(string)
		if got != want[i] || strings.Count(line, `"request_id"`) > 1 {
			t.Errorf("line %d request_id %q, want %q: %s", i, got, want[i], line)
		}
		if rec["component"] != "x" {
			t.Errorf("line %d lost the logger's attributes: %s", i, line)
		}
	}
}

func TestRouteStandardLogWritesJSON(t *testing.T) {
	var buf bytes.Buffer
	l := logging.New(&buf, slog.LevelDebug, "test").With("component", "stdlog")
	prevFlags, prevPrefix, prevOut := log.Flags(), log.Prefix(), log.Writer()
	t.Cleanup(func() { log.SetFlags(prevFlags); log.SetPrefix(prevPrefix); log.SetOutput(prevOut) })
	logging.RouteStandardLog(l, slog.LevelWarn)
	log.Printf("ice: 연결 실패 %d", 3)
	log.Print("second line")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2: %q", len(lines), buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("std log line is not JSON: %q: %v", lines[0], err)
	}
	if rec["msg"] != "ice: 연결 실패 3" || rec["level"] != "WARN" || rec["component"] != "stdlog" || rec["service"] != "test" {
		t.Errorf("record = %v", rec)
	}
}
