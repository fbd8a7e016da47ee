package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
)

// hangGuard only keeps a broken wait from hanging the test binary; no
// test asserts a duration against it.
const hangGuard = 30 * time.Second

// stuckSegmenter never finishes a chunk until released, then fails it.
type stuckSegmenter struct{ release chan struct{} }

func (s stuckSegmenter) Segment(ctx context.Context, _ meetingctx.SegmentInput) (meetingctx.SegmentOutput, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	return meetingctx.SegmentOutput{}, errors.New("released")
}

// discardTopics stores no topics.
type discardTopics struct{}

func (discardTopics) SaveTopics(context.Context, string, string, int, []meetingctx.Topic) error {
	return nil
}

// fakeTimers stands in for the timer that bounds each L1 wait: it
// reports the bound asked for on started and expires only when told to.
type fakeTimers struct {
	started chan time.Duration
	fire    chan time.Time
}

func (f *fakeTimers) after(d time.Duration) (<-chan time.Time, func() bool) {
	f.started <- d
	return f.fire, func() bool { return true }
}

type result struct {
	status int
	body   []byte
	err    error
}

// boundedRequest sends req from another goroutine and, while it is
// pending, checks that every L1 wait it starts is bounded by want, and
// expires each. It returns the response and how many waits it saw.
func boundedRequest(t *testing.T, timers *fakeTimers, want time.Duration, req *http.Request) (result, int) {
	t.Helper()
	done := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- result{status: resp.StatusCode, body: b, err: err}
	}()
	waits := 0
	for {
		select {
		case d := <-timers.started:
			waits++
			if d != want {
				t.Errorf("%s %s waited up to %s for topics, want the L1 bound %s", req.Method, req.URL.Path, d, want)
			}
			select {
			case timers.fire <- time.Now():
			case <-time.After(hangGuard):
				t.Fatal("an L1 wait started its timer but does not wait on it")
			}
		case r := <-done:
			if r.err != nil {
				t.Fatal(r.err)
			}
			return r, waits
		case <-time.After(hangGuard):
			t.Fatalf("%s %s still pending", req.Method, req.URL.Path)
		}
	}
}

// The context and ask endpoints wait for topics at most the configured
// L1 bound (MITHUB_CTX_L1_WAIT), then answer with the turns unsegmented.
func TestWaitsForTopicsAreBoundedByL1Wait(t *testing.T) {
	const l1Wait = meetingctx.DefaultL1Wait
	timers := &fakeTimers{started: make(chan time.Duration), fire: make(chan time.Time)}
	seg := stuckSegmenter{release: make(chan struct{})}
	eng := meetingctx.NewEngine(meetingctx.EngineDeps{Segmenter: seg, Summarizer: segment.NewSummarizer(),
		Embedder: segment.NewEmbedder(64), Store: discardTopics{}, After: timers.after})
	t.Cleanup(func() {
		close(seg.release)
		_ = eng.Close(10 * time.Second)
	})
	h := newHarness(t, harnessOpts{engine: eng, l1Wait: l1Wait})
	key := h.key("acme")
	m := h.createMeeting(key)
	us := twoSubjects(30) // one chunk due, stuck in the segmenter
	h.post(key, m.ID, us)

	req, err := http.NewRequest(http.MethodGet, h.base+"/v1/meetings/"+m.ID+"/context?wait=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	r, waits := boundedRequest(t, timers, l1Wait, req)
	var c contextBody
	if err := json.Unmarshal(r.body, &c); r.status != http.StatusOK || err != nil {
		t.Fatalf("context: %d %s", r.status, r.body)
	}
	if waits != 1 || c.L1.Waited == nil || *c.L1.Waited || len(c.Pending.Turns) != len(us) {
		t.Fatalf("context after %d waits: waited %v, %d pending turns, want 1 wait, false, %d", waits, c.L1.Waited, len(c.Pending.Turns), len(us))
	}

	body, _ := json.Marshal(map[string]string{"question": "what is the budget plan?"})
	req, err = http.NewRequest(http.MethodPost, h.base+"/v1/meetings/"+m.ID+"/ask", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	r, waits = boundedRequest(t, timers, l1Wait, req)
	var a struct {
		L1Waited     bool `json:"l1_waited"`
		PendingTurns int  `json:"pending_turns"`
	}
	if err := json.Unmarshal(r.body, &a); r.status != http.StatusOK || err != nil {
		t.Fatalf("ask: %d %s", r.status, r.body)
	}
	if waits == 0 || a.L1Waited || a.PendingTurns != len(us) {
		t.Fatalf("ask after %d waits: l1_waited %v, %d pending turns, want at least 1 wait, false, %d", waits, a.L1Waited, a.PendingTurns, len(us))
	}
}
