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
