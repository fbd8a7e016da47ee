package room

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/livekit/protocol/logger/pionlogger"
)

// The SDK's and pion's records come out as JSON at their own levels:
// warnings as WARN (the SDK's logr adapter would make them INFO, which the
// level filter then drops), chatter below WARN not at all.
func TestSDKAndPionLogsAreJSONAtTheirLevels(t *testing.T) {
	var buf bytes.Buffer
	l := sdkLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	l.Infow("negotiating", "pc", "publisher")
	l.Debugw("ice candidate")
	l.WithValues("room", "weekly").Warnw("could not send", errors.New("dc closed"), "kind", "reliable")
	pion := pionlogger.NewLoggerFactory(l).NewLogger("ice")
	pion.Info("gathering")
	pion.Warnf("failed to ping %s", "candidate-1")
	l.Errorw("signal lost", nil)

	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		recs = append(recs, rec)
	}
	if len(recs) != 3 {
		t.Fatalf("got %d records, want the warning, pion's warning and the error: %s", len(recs), buf.String())
	}
	if r := recs[0]; r["level"] != "WARN" || r["msg"] != "could not send" || r["err"] != "dc closed" ||
		r["room"] != "weekly" || r["component"] != "livekit" {
		t.Errorf("SDK warning = %v", r)
	}
	if r := recs[1]; r["level"] != "WARN" || r["msg"] != "failed to ping candidate-1" || r["sdk_component"] != "pion.ice" {
		t.Errorf("pion warning = %v", r)
	}
	if r := recs[2]; r["level"] != "ERROR" {
		t.Errorf("SDK error = %v", r)
	}
}
