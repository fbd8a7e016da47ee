package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

// Endpoints, in report order.
const (
	EPCreate     = "POST /v1/meetings"
	EPUtterances = "POST /v1/meetings/{id}/utterances"
	EPAsk        = "POST /v1/meetings/{id}/ask (SSE, whole answer)"
	EPAskFirst   = "ask: first token event"
	EPGeneratePR = "POST /v1/meetings/{id}/generate-pr"
	EPEnd        = "POST /v1/meetings/{id}/end"
	EPGetPR      = "GET /v1/prs/{id}"
)

var endpointOrder = []string{EPCreate, EPUtterances, EPAsk, EPAskFirst, EPGeneratePR, EPEnd, EPGetPR}

// Result is one request's outcome.
type Result struct {
	// Start and End are wall-clock times of the request.
	Start, End time.Time
	// Err is nil for a 2xx answer (and, for an ask, a done event).
	Err error
}

// Recorder collects results per endpoint. It is safe for concurrent use.
type Recorder struct {
	// mu guards results.
	mu      sync.Mutex
	results map[string][]Result
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{results: map[string][]Result{}} }

// Add records one request.
func (r *Recorder) Add(endpoint string, start, end time.Time, err error) {
	r.mu.Lock()
	r.results[endpoint] = append(r.results[endpoint], Result{Start: start, End: end, Err: err})
	r.mu.Unlock()
}

// Time runs fn and records it under endpoint.
func (r *Recorder) Time(endpoint string, fn func() error) error {
	start := time.Now()
	err := fn()
	r.Add(endpoint, start, time.Now(), err)
	return err
}

// Results returns a copy of every endpoint's results.
func (r *Recorder) Results() map[string][]Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]Result, len(r.results))
	for k, v := range r.results {
		out[k] = slices.Clone(v)
	}
	return out
}

// Counts returns the successful and failed requests so far.
func (r *Recorder) Counts() (ok, failed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range r.results {
		for _, x := range rs {
			if x.Err == nil {
				ok++
			} else {
				failed++
			}
		}
	}
	return ok, failed
}

// EndpointStats summarise one endpoint.
type EndpointStats struct {
	Endpoint string
	Requests int
	Errors   int
	// Latencies of successful requests.
	P50, P95, P99, Max time.Duration
	// ErrorKinds counts errors by kind.
	ErrorKinds map[string]int
}

// Summarize computes per-endpoint statistics in report order.
func Summarize(results map[string][]Result) []EndpointStats {
	names := make([]string, 0, len(results))
	for name := range results {
		names = append(names, name)
	}
	rank := func(name string) int {
		if i := slices.Index(endpointOrder, name); i >= 0 {
			return i
		}
		return len(endpointOrder)
	}
	sort.Slice(names, func(i, j int) bool {
		if ri, rj := rank(names[i]), rank(names[j]); ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	out := make([]EndpointStats, 0, len(names))
	for _, name := range names {
		s := EndpointStats{Endpoint: name, ErrorKinds: map[string]int{}}
		var ds []time.Duration
		for _, r := range results[name] {
			s.Requests++
			if r.Err != nil {
				s.Errors++
				s.ErrorKinds[ErrorKind(r.Err)]++
				continue
			}
			ds = append(ds, r.End.Sub(r.Start))
		}
		slices.Sort(ds)
		s.P50, s.P95, s.P99 = Percentile(ds, 0.50), Percentile(ds, 0.95), Percentile(ds, 0.99)
		if len(ds) > 0 {
			s.Max = ds[len(ds)-1]
		}
		out = append(out, s)
	}
	return out
}

// Percentile returns the nearest-rank p-quantile (0 < p <= 1) of sorted
// durations, 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}

// ErrorKind names an error briefly enough to group by: the HTTP status and
// code, a stream error code, a timeout, a refused or reset connection.
func ErrorKind(err error) string {
	var apiErr *apiclient.APIError
	var streamErr *apiclient.StreamError
	var netErr net.Error
	switch {
	case errors.As(err, &apiErr):
		if apiErr.Code != "" {
			return fmt.Sprintf("HTTP %d %s", apiErr.Status, apiErr.Code)
		}
		return fmt.Sprintf("HTTP %d", apiErr.Status)
	case errors.As(err, &streamErr):
		return "stream error " + streamErr.Code
	case errors.Is(err, apiclient.ErrAskIncomplete):
		return "stream ended early"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), strings.Contains(err.Error(), "EOF"):
		return "connection reset"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	}
	var mm *mismatchError
	if errors.As(err, &mm) {
		return "ingest count mismatch"
	}
	msg := err.Error()
	if len(msg) > 60 {
		msg = msg[:60] + "…"
	}
	return msg
}

// mismatchError: an ingest answer whose inserted and duplicate counts do
// not add up to the batch.
type mismatchError struct{ sent, inserted, duplicates int }

func (e *mismatchError) Error() string {
	return fmt.Sprintf("sent %d utterances, answer says %d inserted + %d duplicates", e.sent, e.inserted, e.duplicates)
}
