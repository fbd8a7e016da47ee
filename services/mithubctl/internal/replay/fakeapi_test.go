package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

// fakeAPI is an in-memory agent-api that records what it receives.
type fakeAPI struct {
	// failBatch, when set, gives the status for the n-th (1-based)
	// utterances request; 0 means handle it.
	failBatch func(n int) int
	// afterBatch, when set, is called with the number of utterances
	// accepted so far after each accepted batch.
	afterBatch func(accepted int)

	mu       sync.Mutex
	creates  []apiclient.CreateMeetingRequest
	batches  [][]apiclient.Utterance
	requests int // utterances requests, failed ones included
	meetings map[string]map[string]bool
}

// newFakeAPI starts the fake and returns a client for it that retries
// quickly.
func newFakeAPI(t *testing.T) (*fakeAPI, *apiclient.Client) {
	t.Helper()
	f := &fakeAPI{meetings: map[string]map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/meetings", f.create)
	mux.HandleFunc("GET /v1/meetings/{id}", f.get)
	mux.HandleFunc("POST /v1/meetings/{id}/utterances", f.ingest)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	client := apiclient.New(srv.URL, "test-key", apiclient.WithRetryPolicy(apiclient.RetryPolicy{
		InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond, MaxElapsedTime: 30 * time.Second,
	}))
	return f, client
}

func writeError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%q,"message":%q}}`, code, code)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// decodeStrict decodes like the real API: unknown fields are errors.
func decodeStrict(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func (f *fakeAPI) meeting(id string) apiclient.Meeting {
	return apiclient.Meeting{
		ID: id, Status: apiclient.StatusActive, StartedAt: time.Unix(0, 0).UTC(), Metadata: map[string]any{},
		Counters: apiclient.Counters{Utterances: int64(len(f.meetings[id])), LastSeq: int64(len(f.meetings[id])) - 1},
	}
}

func (f *fakeAPI) create(w http.ResponseWriter, r *http.Request) {
	var req apiclient.CreateMeetingRequest
	if err := decodeStrict(r.Body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_body")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates = append(f.creates, req)
	id := fmt.Sprintf("m-%d", len(f.creates))
	f.meetings[id] = map[string]bool{}
	m := f.meeting(id)
	m.Title, m.RoomName, m.Language = req.Title, req.RoomName, req.Language
	writeJSON(w, http.StatusCreated, m)
}

func (f *fakeAPI) get(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := r.PathValue("id")
	if _, ok := f.meetings[id]; !ok {
		writeError(w, http.StatusNotFound, "meeting_not_found")
		return
	}
	writeJSON(w, http.StatusOK, f.meeting(id))
}

func (f *fakeAPI) ingest(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Utterances []apiclient.Utterance `json:"utterances"`
	}
	if err := decodeStrict(r.Body, &req); err != nil || len(req.Utterances) > apiclient.MaxUtterancesPerRequest {
		writeError(w, http.StatusBadRequest, "invalid_body")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	if f.failBatch != nil {
		if status := f.failBatch(f.requests); status != 0 {
			writeError(w, status, "unavailable")
			return
		}
	}
	seen, ok := f.meetings[r.PathValue("id")]
	if !ok {
		writeError(w, http.StatusNotFound, "meeting_not_found")
		return
	}
	f.batches = append(f.batches, req.Utterances)
	var res apiclient.IngestResult
	for _, u := range req.Utterances {
		if seen[u.SegmentID] {
			res.Duplicates++
			continue
		}
		seen[u.SegmentID] = true
		res.Inserted++
	}
	res.Cursor = int64(len(seen)) - 1
	if f.afterBatch != nil {
		accepted := 0
		for _, b := range f.batches {
			accepted += len(b)
		}
		f.afterBatch(accepted)
	}
	writeJSON(w, http.StatusOK, res)
}

// batchSizes returns the sizes of the accepted batches.
func (f *fakeAPI) batchSizes() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	sizes := make([]int, len(f.batches))
	for i, b := range f.batches {
		sizes[i] = len(b)
	}
	return sizes
}

// segmentIDs returns the segment ids of the accepted batches, in order.
func (f *fakeAPI) segmentIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for _, b := range f.batches {
		for _, u := range b {
			ids = append(ids, u.SegmentID)
		}
	}
	return ids
}
