package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// writeJSONL writes n utterance lines to dir/name.
func writeJSONL(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"speaker_name":"Speaker %d","text":"line %d","start_ms":%d,"end_ms":%d}`+"\n", i%3, i, i*1000, i*1000+800)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeQMSum writes a QMSum meeting of n turns to dir/name.
func writeQMSum(t *testing.T, dir, name string, n int) string {
	t.Helper()
	type turn struct {
		Speaker string `json:"speaker"`
		Content string `json:"content"`
	}
	doc := struct {
		Turns   []turn `json:"meeting_transcripts"`
		Topics  []any  `json:"topic_list"`
		Queries []any  `json:"specific_query_list"`
		General []any  `json:"general_query_list"`
	}{Topics: []any{}, Queries: []any{}, General: []any{}}
	for i := range n {
		doc.Turns = append(doc.Turns, turn{Speaker: fmt.Sprintf("PhD %c", 'A'+i%2), Content: fmt.Sprintf("turn %d .", i)})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// noTicks is a clock for unthrottled runs: asking it for a ticker fails.
func noTicks(t *testing.T) clock {
	return clock{
		now: time.Now,
		newTicker: func(time.Duration) (<-chan time.Time, func()) {
			t.Error("unthrottled replay asked for a ticker")
			return nil, func() {}
		},
	}
}

func TestRunBatches(t *testing.T) {
	tests := []struct {
		name      string
		giveBatch int
		want      []int
	}{
		{name: "default", giveBatch: 0, want: []int{50, 50, 20}},
		{name: "small", giveBatch: 45, want: []int{45, 45, 30}},
		{name: "largest", giveBatch: 500, want: []int{120}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api, client := newFakeAPI(t)
			path := writeJSONL(t, t.TempDir(), "standup.jsonl", 120)
			var out bytes.Buffer

			id, err := run(t.Context(), client, Options{File: path, Batch: tt.giveBatch, Progress: &out}, noTicks(t), false)
			if err != nil {
				t.Fatal(err)
			}
			if id != "m-1" {
				t.Errorf("meeting id = %q, want m-1", id)
			}
			if got := api.batchSizes(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("batch sizes = %v, want %v", got, tt.want)
			}
			if len(api.creates) != 1 || api.creates[0].Title != "standup" || api.creates[0].RoomName != "replay-standup" ||
				api.creates[0].Language != "en" {
				t.Errorf("creates = %+v", api.creates)
			}
			if !strings.Contains(out.String(), "replayed 120 utterances into meeting m-1: 120 inserted, 0 duplicates") {
				t.Errorf("summary missing from:\n%s", out.String())
			}
		})
	}
}

func TestRunSameFileTwiceInsertsNothing(t *testing.T) {
	api, client := newFakeAPI(t)
	path := writeQMSum(t, t.TempDir(), "Bmr005.json", 30)

	id, err := run(t.Context(), client, Options{File: path, Language: "de"}, noTicks(t), false)
	if err != nil {
		t.Fatal(err)
	}
	first := api.segmentIDs()
	var out bytes.Buffer
	again, err := run(t.Context(), client, Options{File: path, MeetingID: id, Progress: &out}, noTicks(t), false)
	if err != nil {
		t.Fatal(err)
	}

	if again != id || len(api.creates) != 1 || api.creates[0].Language != "de" {
		t.Errorf("second run id %q (first %q), creates %+v: want one meeting created", again, id, api.creates)
	}
	all := api.segmentIDs()
	if len(first) != 30 || first[0] != "bmr005-00000" || !reflect.DeepEqual(all[30:], first) {
		t.Errorf("segment ids: first run %v, second run %v", first, all[len(first):])
	}
	if !strings.Contains(out.String(), "30 utterances stored") || !strings.Contains(out.String(), "0 inserted, 30 duplicates") {
		t.Errorf("second run output:\n%s", out.String())
	}
}

func TestRunSegmentIDsStableAcrossMeetings(t *testing.T) {
	api, client := newFakeAPI(t)
	path := writeJSONL(t, t.TempDir(), "Weekly Sync.jsonl", 12)
	for range 2 {
		if _, err := run(t.Context(), client, Options{File: path, Batch: 5}, noTicks(t), false); err != nil {
			t.Fatal(err)
		}
	}
	ids := api.segmentIDs()
	if len(api.creates) != 2 || len(ids) != 24 || !reflect.DeepEqual(ids[:12], ids[12:]) || ids[0] != "weekly-sync-00001" {
		t.Errorf("%d meetings, ids %v", len(api.creates), ids)
	}
}

func TestRunResumeUnknownMeeting(t *testing.T) {
	api, client := newFakeAPI(t)
	path := writeJSONL(t, t.TempDir(), "a.jsonl", 3)

	id, err := run(t.Context(), client, Options{File: path, MeetingID: "nope"}, noTicks(t), false)
	if err == nil || !strings.Contains(err.Error(), "meeting_not_found") || id != "" {
		t.Errorf("Run = %q, %v; want a not-found error", id, err)
	}
	if len(api.creates) != 0 || api.requests != 0 {
		t.Errorf("creates %d, utterance requests %d; want none", len(api.creates), api.requests)
	}
}

func TestRunSurvivesAPIFailures(t *testing.T) {
	api, client := newFakeAPI(t)
	api.failBatch = func(n int) int {
		switch n {
		case 2:
			return 503
		case 3:
			return 502
		}
		return 0
	}
	path := writeJSONL(t, t.TempDir(), "a.jsonl", 100)

	if _, err := run(t.Context(), client, Options{File: path, Batch: 40}, noTicks(t), false); err != nil {
		t.Fatal(err)
	}
	if got := api.batchSizes(); !reflect.DeepEqual(got, []int{40, 40, 20}) || api.requests != 5 {
		t.Errorf("batches %v after %d requests, want [40 40 20] after 5", got, api.requests)
	}
}

func TestRunReturnsMeetingIDOnCancel(t *testing.T) {
	api, client := newFakeAPI(t)
	ctx, cancel := context.WithCancel(t.Context())
	api.failBatch = func(n int) int {
		if n == 2 {
			cancel()
		}
		return 0
	}
	path := writeJSONL(t, t.TempDir(), "a.jsonl", 100)

	id, err := run(ctx, client, Options{File: path, Batch: 10}, noTicks(t), false)
	if !errors.Is(err, context.Canceled) || id != "m-1" {
		t.Errorf("Run = %q, %v; want m-1 and context.Canceled", id, err)
	}
	if n := len(api.batchSizes()); n > 2 {
		t.Errorf("%d batches accepted after cancel, want at most 2", n)
	}
}

func TestRunRatePacing(t *testing.T) {
	const (
		rate    = 25.0 // 2.5 utterances per 100ms tick
		perTick = 2.5
		total   = 40
	)
	api, client := newFakeAPI(t)
	ticks := make(chan time.Time)
	var offered atomic.Int64 // ticks offered so far, counted before each send
	var overrun atomic.Value
	api.afterBatch = func(accepted int) {
		// The tick count is read after the tick that allowed this batch
		// was offered, so it is an upper bound.
		if limit := float64(offered.Load()) * perTick; float64(accepted) > limit {
			overrun.Store(fmt.Sprintf("%d utterances accepted after %d ticks", accepted, offered.Load()))
		}
	}
	clk := clock{
		now:       time.Now,
		newTicker: func(time.Duration) (<-chan time.Time, func()) { return ticks, func() {} },
	}
	done := make(chan struct{})
	delivered := make(chan int)
	go func() {
		n := 0
		for {
			offered.Add(1)
			select {
			case ticks <- time.Now():
				n++
			case <-done:
				delivered <- n
				return
			}
		}
	}()

	path := writeJSONL(t, t.TempDir(), "a.jsonl", total)
	_, err := run(t.Context(), client, Options{File: path, Rate: rate, Batch: 50}, clk, false)
	close(done)
	n := <-delivered
	if err != nil {
		t.Fatal(err)
	}

	sizes := api.batchSizes()
	sum := 0
	for _, s := range sizes {
		sum += s
		if s > 3 {
			t.Errorf("batch of %d, want at most ceil(2.5) = 3", s)
		}
	}
	if sum != total {
		t.Errorf("%d utterances sent, want %d", sum, total)
	}
	if want := 16; n < want {
		t.Errorf("finished after %d ticks, want at least %d (40 utterances at 2.5 per tick)", n, want)
	}
	if v := overrun.Load(); v != nil {
		t.Error(v)
	}
}

func TestRunOptionErrors(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "notes.txt")
	empty := filepath.Join(dir, "empty.jsonl")
	for _, p := range []string{txt, empty} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ok := writeJSONL(t, dir, "ok.jsonl", 1)
	tests := []struct {
		name    string
		give    Options
		wantErr string
	}{
		{name: "no file", give: Options{}, wantErr: "no file"},
		{name: "negative rate", give: Options{File: ok, Rate: -1}, wantErr: "rate -1 is negative"},
		{name: "batch too big", give: Options{File: ok, Batch: 501}, wantErr: "batch 501 outside 1..500"},
		{name: "extension", give: Options{File: txt}, wantErr: `unsupported file type ".txt"`},
		{name: "missing", give: Options{File: filepath.Join(dir, "missing.json")}, wantErr: "no such file"},
		{name: "empty", give: Options{File: empty}, wantErr: "no utterances"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api, client := newFakeAPI(t)
			_, err := run(t.Context(), client, tt.give, noTicks(t), false)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			if len(api.creates) != 0 {
				t.Error("a meeting was created")
			}
		})
	}
}

func TestBudget(t *testing.T) {
	tests := []struct {
		name      string
		giveRate  float64
		giveLimit int
		want      []int // utterances taken after each tick
	}{
		{name: "below one per tick", giveRate: 5, giveLimit: 50, want: []int{0, 1, 0, 1, 0, 1}},
		{name: "fractional", giveRate: 25, giveLimit: 50, want: []int{2, 3, 2, 3}},
		{name: "batch limits", giveRate: 100, giveLimit: 4, want: []int{4, 4, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBudget(tt.giveRate, tickInterval)
			var got []int
			for range tt.want {
				b.tick()
				got = append(got, b.take(tt.giveLimit))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("taken per tick = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBudgetDoesNotBurstAfterIdleTicks(t *testing.T) {
	b := newBudget(25, tickInterval)
	for range 100 {
		b.tick()
	}
	if got := b.take(1000); got != 3 {
		t.Errorf("took %d after idle ticks, want at most one tick's worth (3)", got)
	}
}
