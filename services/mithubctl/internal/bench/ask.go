package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/qmsum"
)

// AskOptions shape the ask benchmark.
type AskOptions struct {
	DataDir string
	BaseURL string
	APIKey  string
	// Meetings cached at once, of Turns turns each (defaults 100 and 500).
	Meetings int
	Turns    int
	// Askers ask concurrently, Asks questions in all (defaults 20, 1000).
	Askers int
	Asks   int
	// Rate, when positive, starts asks at this many per second instead of
	// each asker asking again as soon as it has its answer; latencies then
	// count from when an ask was due, so waiting for a free asker counts.
	Rate float64
	// Profile, when set, receives the CPU profile of this process while
	// the asks run.
	Profile io.Writer
}

func (o AskOptions) withDefaults() AskOptions {
	if o.Meetings <= 0 {
		o.Meetings = 100
	}
	if o.Turns <= 0 {
		o.Turns = 500
	}
	if o.Askers <= 0 {
		o.Askers = 20
	}
	if o.Asks <= 0 {
		o.Asks = 1000
	}
	return o
}

type askMeeting struct {
	id        string
	utts      []apiclient.Utterance
	questions []string
}

// cpuProcs are the processes whose CPU time the benchmark reports: the
// server (the process $MITHUB_BENCH_API_PID when set, as bench-ask.sh
// sets it, else every agent-api), its database (every postgres process)
// and this load generator, when on one machine.
var cpuProcs = []string{"agent-api", "postgres", "mithub-lab"}

// askSample is one timed ask.
type askSample struct {
	firstToken time.Duration
	total      time.Duration
	build      time.Duration
	prepare    time.Duration
}

// Ask loads Meetings meetings of Turns QMSum turns through the API, waits
// until their topics are done, then has Askers clients ask their QMSum
// queries over SSE, and reports time to the first token event, the whole
// answer, and the server's context-build time.
func Ask(ctx context.Context, client *apiclient.Client, o AskOptions, w io.Writer) error {
	o = o.withDefaults()
	ms, err := askMeetings(o)
	if err != nil {
		return err
	}
	if err := loadAskMeetings(ctx, client, ms); err != nil {
		return err
	}
	asker := apiclient.New(o.BaseURL, o.APIKey, apiclient.WithHTTPClient(&http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: o.Askers, MaxConnsPerHost: o.Askers},
	}))
	samples := make([]askSample, 0, o.Asks)
	var mu sync.Mutex
	var firstErr error
	// A job is when an ask is due: now (closed loop) or on the rate's
	// schedule.
	jobs := make(chan time.Time, o.Asks)
	var wg sync.WaitGroup
	pinned := map[string]int{"mithub-lab": os.Getpid()}
	if pid, err := strconv.Atoi(os.Getenv("MITHUB_BENCH_API_PID")); err == nil && pid > 0 {
		pinned["agent-api"] = pid
	}
	cpuBefore := cpuByName("/proc", pinned, cpuProcs...)
	if o.Profile != nil {
		if err := pprof.StartCPUProfile(o.Profile); err != nil {
			return err
		}
	}
	start := time.Now()
	for a := range o.Askers {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 7))
			for due := range jobs {
				m := ms[rng.IntN(len(ms))]
				q := m.questions[rng.IntN(len(m.questions))]
				if due.IsZero() {
					due = time.Now()
				}
				s, err := askOnce(ctx, asker, m.id, q, due)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil {
					samples = append(samples, s)
				}
				mu.Unlock()
			}
		}(uint64(a))
	}
	if o.Rate > 0 {
		interval := time.Duration(float64(time.Second) / o.Rate)
		for i := 0; i < o.Asks && ctx.Err() == nil; i++ {
			due := start.Add(time.Duration(i) * interval)
			time.Sleep(time.Until(due))
			jobs <- due
		}
	} else {
		for range o.Asks {
			jobs <- time.Time{}
		}
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)
	cpuAfter := cpuByName("/proc", pinned, cpuProcs...)
	if o.Profile != nil {
		pprof.StopCPUProfile()
	}
	if firstErr != nil {
		return firstErr
	}
	pick := func(f func(askSample) time.Duration) []time.Duration {
		out := make([]time.Duration, len(samples))
		for i, s := range samples {
			out[i] = f(s)
		}
		return out
	}
	pace := "each asking again on its answer"
	if o.Rate > 0 {
		pace = fmt.Sprintf("asks due at %.0f/s", o.Rate)
	}
	fmt.Fprintf(w, "ask, local provider: %d cached meetings × %d turns, %d concurrent askers (%s), %d asks over SSE in %s (%.0f asks/s)\n\n",
		len(ms), o.Turns, o.Askers, pace, len(samples), elapsed.Round(time.Millisecond), float64(len(samples))/elapsed.Seconds())
	fmt.Fprintln(w, "| measure | n | p50 | p99 | max | goal |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	percentiles(pick(func(s askSample) time.Duration { return s.firstToken })).row(w, "time to first SSE token (client)", "p99 < 30 ms")
	percentiles(pick(func(s askSample) time.Duration { return s.total })).row(w, "whole answer (client)", "")
	percentiles(pick(func(s askSample) time.Duration { return s.prepare })).row(w, "prepare: sync, L1 wait, plan, search, reads, build (server)", "")
	percentiles(pick(func(s askSample) time.Duration { return s.build })).row(w, "context build (server)", "p99 < 10 ms")
	writeCPUPerAsk(w, cpuProcs, cpuBefore, cpuAfter, len(samples), elapsed)
	return nil
}

// askMeetings builds meetings of o.Turns QMSum turns each: a val
// meeting, continued with the next ones when it is shorter.
func askMeetings(o AskOptions) ([]*askMeeting, error) {
	files, err := filepath.Glob(filepath.Join(o.DataDir, "val", "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no QMSum meetings under %s/val", o.DataDir)
	}
	slices.Sort(files)
	type src struct {
		utts      []apiclient.Utterance
		questions []string
	}
	srcs := make([]src, len(files))
	for i, f := range files {
		m, err := qmsum.Load(f)
		if err != nil {
			return nil, err
		}
		srcs[i].utts = qmsum.Utterances(m, "")
		for _, q := range m.SpecificQueries {
			srcs[i].questions = append(srcs[i].questions, q.Query)
		}
	}
	out := make([]*askMeeting, o.Meetings)
	for i := range out {
		am := &askMeeting{}
		var offset int64
		for k := 0; len(am.utts) < o.Turns; k++ {
			s := srcs[(i+k)%len(srcs)]
			if k == 0 || len(am.questions) == 0 {
				am.questions = append(am.questions, s.questions...)
			}
			var end int64
			for _, u := range s.utts {
				if len(am.utts) == o.Turns {
					break
				}
				u.SegmentID = fmt.Sprintf("ask-%d-%d", i, len(am.utts))
				u.StartMS += offset
				u.EndMS += offset
				end = u.EndMS
				am.utts = append(am.utts, u)
			}
			offset = end + 1000
		}
		if len(am.questions) == 0 {
			am.questions = []string{"What did the team decide?"}
		}
		out[i] = am
	}
	return out, nil
}

// loadAskMeetings posts every meeting, ends it and waits until topics
// cover all its turns, so asks meet a warm, settled cache.
func loadAskMeetings(ctx context.Context, client *apiclient.Client, ms []*askMeeting) error {
	ids, err := fillMeetings(ctx, client, len(ms), "ask bench",
		func(i int) []apiclient.Utterance { return ms[i].utts },
		func(ctx context.Context, id string, last int) error {
			if _, err := client.EndMeeting(ctx, id); err != nil {
				return err
			}
			return client.WaitTopics(ctx, id, last, 5*time.Minute)
		})
	for i, id := range ids {
		ms[i].id = id
	}
	return err
}

// askOnce asks over SSE and times the first token event and the end,
// from start.
func askOnce(ctx context.Context, client *apiclient.Client, meetingID, question string, start time.Time) (askSample, error) {
	var s askSample
	res, err := client.AskStream(ctx, meetingID, apiclient.AskRequest{Question: question}, func(ev apiclient.AskEvent) error {
		switch ev.Name {
		case apiclient.AskEventToken:
			if s.firstToken == 0 {
				s.firstToken = time.Since(start)
			}
		case apiclient.AskEventDone:
			s.total = time.Since(start)
		}
		return nil
	})
	if err != nil {
		return askSample{}, err
	}
	s.build = time.Duration(res.Timings.BuildMS * float64(time.Millisecond))
	s.prepare = time.Duration(res.Timings.PrepareMS * float64(time.Millisecond))
	return s, nil
}
