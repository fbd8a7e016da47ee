// Package health runs readiness checks and serves /healthz (the process is
// up) and /readyz (every dependency answers) for the services.
package health

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// checkTimeout bounds every readiness check.
const checkTimeout = 2 * time.Second

// Check reports whether a dependency answers.
type Check func(ctx context.Context) error

// Register adds GET /healthz and GET /readyz to mux. checks maps a
// dependency's name to its check.
func Register(mux *http.ServeMux, log *slog.Logger, checks map[string]Check) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		readyz(w, r, log, checks)
	})
}

// Report is the outcome of the readiness checks.
type Report struct {
	// Checks maps each dependency to "ok" or "unavailable".
	Checks map[string]string
	// Failed names the unavailable dependencies, sorted.
	Failed []string
}

// OK reports whether every check passed.
func (r Report) OK() bool { return len(r.Failed) == 0 }

// Evaluate runs every check at once, each bounded by a short timeout, and
// logs failures.
func Evaluate(ctx context.Context, log *slog.Logger, checks map[string]Check) Report {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	var (
		wg sync.WaitGroup
		mu sync.Mutex
		r  = Report{Checks: make(map[string]string, len(checks))}
	)
	for name, check := range checks {
		wg.Go(func() {
			err := check(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				log.WarnContext(ctx, "readiness check failed", "dependency", name, "err", err)
				r.Checks[name] = "unavailable"
				r.Failed = append(r.Failed, name)
				return
			}
			r.Checks[name] = "ok"
		})
	}
	wg.Wait()
	sort.Strings(r.Failed)
	return r
}

// Body is the JSON document /readyz answers with, and its status code.
func (r Report) Body() (int, map[string]any) {
	if !r.OK() {
		return http.StatusServiceUnavailable, map[string]any{
			"status": "unavailable", "checks": r.Checks,
			"error": map[string]string{"code": "unavailable", "message": "unavailable: " + strings.Join(r.Failed, ", ")},
		}
	}
	return http.StatusOK, map[string]any{"status": "ok", "checks": r.Checks}
}

func readyz(w http.ResponseWriter, r *http.Request, log *slog.Logger, checks map[string]Check) {
	status, body := Evaluate(r.Context(), log, checks).Body()
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
