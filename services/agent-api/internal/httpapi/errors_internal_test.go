package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/agent-api/internal/meetings"
	"github.com/mithub/mithub/services/agent-api/internal/prs"
	"github.com/mithub/mithub/services/agent-api/internal/search"
)

// A database outage is 503 with Retry-After, which clients retry, not an
// internal error.
func TestUnavailableDatabaseIs503(t *testing.T) {
	app := fiber.New(fiber.Config{ErrorHandler: errorHandler(slog.New(slog.DiscardHandler))})
	app.Get("/down", func(*fiber.Ctx) error {
		return fmt.Errorf("ingest into meeting m1: %w: connection refused", store.ErrUnavailable)
	})
	app.Get("/broken", func(*fiber.Ctx) error { return fmt.Errorf("something else") })
	for path, want := range map[string]int{"/down": 503, "/broken": 500} {
		resp, err := app.Test(httptest.NewRequest("GET", path, nil))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		var doc errorBody
		if resp.StatusCode != want || json.Unmarshal(body, &doc) != nil || doc.Error.Code == "" {
			t.Fatalf("%s: %d %s, want %d with a JSON error", path, resp.StatusCode, body, want)
		}
		if retry := resp.Header.Get("Retry-After"); (want == 503) != (retry != "") || (want == 503 && doc.Error.Code != codeUnavailable) {
			t.Fatalf("%s: Retry-After %q, code %q", path, retry, doc.Error.Code)
		}
	}
}

func TestUseCaseErrorsMapToStatuses(t *testing.T) {
	tests := []struct {
		give       error
		wantStatus int
		wantCode   string
		wantMsg    string
	}{
		{meetings.ErrNotFound, 404, codeNotFound, "meeting not found"},
		{fmt.Errorf("get: %w", prs.ErrMeetingNotFound), 404, codeNotFound, "meeting not found"},
		{search.ErrNotFound, 404, codeNotFound, "meeting not found"},
		{prs.ErrNotFound, 404, codeNotFound, "PR not found"},
		{fmt.Errorf("utterances[0]: %w", meetings.ErrInvalid), 400, codeInvalid, "utterances[0]: invalid argument"},
		{fmt.Errorf("PR is running: %w", prs.ErrConflict), 409, codeConflict, "PR is running: conflict"},
		{fmt.Errorf("queue down: %w", prs.ErrUnavailable), 503, codeUnavailable, "queue down: unavailable"},
	}
	for _, tt := range tests {
		ae := classify(tt.give)
		if ae.Status != tt.wantStatus || ae.Code != tt.wantCode || ae.Message != tt.wantMsg {
			t.Errorf("%v: %d %s %q, want %d %s %q", tt.give, ae.Status, ae.Code, ae.Message, tt.wantStatus, tt.wantCode, tt.wantMsg)
		}
	}
}
