package load

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

// API is the part of agent-api's client a run calls. Give it a client
// without retries (apiclient.NoRetry) so that every attempt is measured;
// the run retries what it must deliver itself.
type API interface {
	CreateMeeting(ctx context.Context, req apiclient.CreateMeetingRequest) (apiclient.Meeting, error)
	GetMeeting(ctx context.Context, meetingID string) (apiclient.Meeting, error)
	PostUtterances(ctx context.Context, meetingID string, utts []apiclient.Utterance) (apiclient.IngestResult, error)
	AskStream(ctx context.Context, meetingID string, req apiclient.AskRequest, fn func(apiclient.AskEvent) error) (apiclient.AskResult, error)
	EndMeeting(ctx context.Context, meetingID string) (apiclient.Meeting, error)
	GeneratePR(ctx context.Context, meetingID string, waitL1 bool) (apiclient.PRRef, error)
	GetPR(ctx context.Context, id string) (apiclient.PR, error)
}

// maxBatch is the most pending utterances sent in one request.
const maxBatch = 100

// Phases written to the status file.
const (
	PhaseSetup   = "setup"
	PhaseTraffic = "traffic"
	PhaseSettle  = "settle"
	PhaseVerify  = "verify"
	PhaseDone    = "done"
)

// meetingRun is one meeting's state.
type meetingRun struct {
	slot   int
	gen    int // the slot's n-th meeting
	id     string
	prefix string

	// mu guards the fields below.
	mu        sync.Mutex
	generated int
	pending   []apiclient.Utterance
	acked     map[string]bool
	prs       []string
	ended     bool // ended by this run
	prAsked   bool // its PR asked for after it ended
	// sending serialises posts of this meeting.
	sending sync.Mutex
}

// runner is one run's shared state.
type runner struct {
	api    API
	o      Options
	text   *corpus
	rec    *Recorder
	log    io.Writer
	runID  string
	phase  atomic.Value // string
	acked  atomic.Int64
	prSeen sync.Map // PR id → struct{}

	// slots hold each slot's current meeting; all, every meeting of the
	// run (guarded by allMu); finishing, meetings being ended mid-run.
	slots     []atomic.Pointer[meetingRun]
	allMu     sync.Mutex
	all       []*meetingRun
	finishing sync.WaitGroup
}

// Run drives the API as o says, writes progress to log, and returns what
// it measured. st, when not nil, lets the completeness check compare
// segment ids and PR rows in PostgreSQL; without it the API's counters are
// compared. ctx cancels the whole run.
func Run(ctx context.Context, api API, st Store, o Options, log io.Writer) (*Report, error) {
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	text, err := loadCorpus(o.DataDir, o.MeetingFile, o.KoreanEvery)
	if err != nil {
		return nil, err
	}
	r := &runner{api: api, o: o, text: text, rec: NewRecorder(), log: log,
		runID: fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffffff)}
	r.phase.Store(PhaseSetup)
	rep := &Report{Options: o, Started: time.Now()}

	statusCtx, stopStatus := context.WithCancel(context.Background())
	var bg sync.WaitGroup
	if o.StatusFile != "" {
		bg.Go(func() { r.writeStatus(statusCtx) })
	}
	defer func() {
		stopStatus()
		bg.Wait()
	}()

	ms, err := r.createMeetings(ctx)
	if err != nil {
		return nil, err
	}
	r.slots = make([]atomic.Pointer[meetingRun], len(ms))
	for i, m := range ms {
		r.slots[i].Store(m)
	}
	r.all = append(r.all, ms...)
	fmt.Fprintf(log, "load: %d meetings created, sending for %s\n", len(ms), o.Duration)

	sampler := newRSSSampler(o.Procs, o.RSSEvery, time.Now())
	rssCtx, stopRSS := context.WithCancel(ctx)
	var rssWG sync.WaitGroup
	rssWG.Go(func() { sampler.run(rssCtx) })

	r.phase.Store(PhaseTraffic)
	trafficStart := time.Now()
	r.traffic(ctx, len(ms))
	rep.Traffic = time.Since(trafficStart)
	// RSS growth is measured to here; settling (every meeting ended and
	// its PR built at once) is not the steady traffic.
	if len(o.Procs) > 0 {
		rep.RSSTrafficEnd = sampler.sample()
	}
	r.finishing.Wait()
	ms = r.meetings()
	fmt.Fprintf(log, "load: traffic done after %s; delivering the rest%s\n", rep.Traffic.Round(time.Millisecond),
		map[bool]string{true: ", ending meetings and waiting for PRs", false: ""}[o.PRAtEnd || o.PREvery > 0])

	r.phase.Store(PhaseSettle)
	settleCtx, cancel := context.WithTimeout(ctx, o.SettleTimeout)
	r.settle(settleCtx, ms)
	prs := r.waitPRs(settleCtx, ms)
	cancel()
	stopRSS()
	rssWG.Wait()

	r.phase.Store(PhaseVerify)
	rep.Meetings, rep.PRs = records(ms), prs
	rep.Completeness = Check(ctx, api, st, rep.Meetings, prs)
	rep.Elapsed = time.Since(rep.Started)
	results := r.rec.Results()
	rep.Endpoints = Summarize(results)
	rep.RSS = sampler.result()
	rep.Throughput = throughput(results, rep.Traffic)
	if o.MarksFile != "" {
		fault, ok, err := readMarks(o.MarksFile)
		if err != nil {
			return nil, err
		}
		if ok {
			rep.Fault = faultReport(fault, results, prs)
		}
	}
	r.phase.Store(PhaseDone)
	return rep, ctx.Err()
}

// createMeetings creates o.Meetings meetings, 16 at a time, retrying each
// until it exists.
func (r *runner) createMeetings(ctx context.Context) ([]*meetingRun, error) {
	ms := make([]*meetingRun, r.o.Meetings)
	errs := make([]error, len(ms))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range ms {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			ms[i], errs[i] = r.newMeeting(ctx, i, 0)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("create meeting %d: %w", i, err)
		}
	}
	return ms, nil
}

// newMeeting creates the gen-th meeting of a slot, retrying until it
// exists or the settle timeout passes.
func (r *runner) newMeeting(ctx context.Context, slot, gen int) (*meetingRun, error) {
	cctx, cancel := context.WithTimeout(ctx, r.o.SettleTimeout)
	defer cancel()
	m := &meetingRun{slot: slot, gen: gen, prefix: fmt.Sprintf("%s-m%04d", r.runID, slot), acked: map[string]bool{}}
	name := fmt.Sprintf("%s-%s-%d", r.o.Label, r.runID, slot)
	if gen > 0 {
		m.prefix += fmt.Sprintf("-g%d", gen)
		name += fmt.Sprintf("-g%d", gen)
	}
	lang := "en"
	if r.text.korean(slot) {
		lang = "ko"
	}
	req := apiclient.CreateMeetingRequest{Title: fmt.Sprintf("%s meeting %d", r.o.Label, slot), RoomName: name, Language: lang}
	err := retry(cctx, func() error {
		return r.call(cctx, EPCreate, r.o.RequestTimeout, func(ctx context.Context) error {
			got, err := r.api.CreateMeeting(ctx, req)
			m.id = got.ID
			return err
		})
	})
	return m, err
}

// meetings returns every meeting of the run so far.
func (r *runner) meetings() []*meetingRun {
	r.allMu.Lock()
	defer r.allMu.Unlock()
	return slices.Clone(r.all)
}

// call runs fn with a per-request timeout derived from ctx and records it.
func (r *runner) call(ctx context.Context, endpoint string, timeout time.Duration, fn func(ctx context.Context) error) error {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return r.rec.Time(endpoint, func() error { return fn(rctx) })
}

// retry runs fn until it succeeds or ctx ends, backing off from 200ms to
// 2s; it returns the last error when ctx ended first.
func retry(ctx context.Context, fn func() error) error {
	pause := 200 * time.Millisecond
	for {
		err := fn()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}

// traffic runs every slot's senders until o.Duration has passed.
func (r *runner) traffic(ctx context.Context, slots int) {
	tctx, cancel := context.WithTimeout(ctx, r.o.Duration)
	defer cancel()
	begin := time.Now()
	var wg sync.WaitGroup
	for slot := range slots {
		// Spread the meetings' ticks over one interval.
		offset := time.Duration(int64(r.o.Interval) * int64(slot) / int64(slots))
		wg.Go(func() { r.speak(ctx, tctx, slot, begin.Add(offset)) })
		if r.o.AskEvery > 0 {
			askOffset := time.Duration(int64(r.o.AskEvery) * int64(slot) / int64(slots))
			wg.Go(func() {
				r.every(tctx, begin.Add(askOffset), r.o.AskEvery, func(n int) { r.ask(ctx, r.slots[slot].Load(), n) })
			})
		}
		if r.o.PREvery > 0 {
			prOffset := r.o.PREvery/2 + time.Duration(int64(r.o.PREvery)*int64(slot)/int64(slots))
			wg.Go(func() {
				r.every(tctx, begin.Add(prOffset), r.o.PREvery, func(int) { _ = r.generatePR(ctx, r.slots[slot].Load(), false) })
			})
		}
	}
	wg.Wait()
}

// speak adds one utterance per interval to the slot's meeting from start
// on and posts what is pending, until tctx ends; a meeting that reached
// MeetingLength is handed to finish and the next utterance goes to a new
// meeting. Requests run under ctx, so the end of the traffic phase never
// cuts one off.
func (r *runner) speak(ctx, tctx context.Context, slot int, start time.Time) {
	if !sleepUntil(tctx, start) {
		return
	}
	said := 0
	for {
		due := int(time.Since(start)/r.o.Interval) + 1
		for said < due {
			m := r.slots[slot].Load()
			m.mu.Lock()
			full := r.o.MeetingLength > 0 && m.generated >= r.o.lengthOf(slot, m.gen)
			if !full {
				m.pending = append(m.pending, r.text.utterance(m.slot, m.generated, m.prefix))
				m.generated++
				said++
			}
			m.mu.Unlock()
			if full {
				next, err := r.newMeeting(ctx, slot, m.gen+1)
				if err != nil {
					fmt.Fprintf(r.log, "load: slot %d: no new meeting: %v\n", slot, err)
					return
				}
				r.allMu.Lock()
				r.all = append(r.all, next)
				r.allMu.Unlock()
				r.slots[slot].Store(next)
				r.finishing.Go(func() { r.finish(ctx, m) })
			}
		}
		_ = r.post(ctx, r.slots[slot].Load())
		if !sleepUntil(tctx, start.Add(time.Duration(due)*r.o.Interval)) {
			return
		}
	}
}

// finish delivers what is pending of a meeting that reached its length,
// ends it and, with PRAtEnd, asks for its PR, retrying each step within
// the settle timeout; what it could not do, settle does after the run.
func (r *runner) finish(ctx context.Context, m *meetingRun) {
	fctx, cancel := context.WithTimeout(ctx, r.o.SettleTimeout)
	defer cancel()
	r.endMeeting(fctx, m, true)
}

// endMeeting delivers m's pending utterances, then, with end, ends m and,
// with PRAtEnd, asks for its PR; each step is retried until ctx ends and
// done once.
func (r *runner) endMeeting(ctx context.Context, m *meetingRun, end bool) {
	if retry(ctx, func() error {
		for {
			m.mu.Lock()
			left := len(m.pending)
			m.mu.Unlock()
			if left == 0 {
				return nil
			}
			if err := r.post(ctx, m); err != nil {
				return err
			}
		}
	}) != nil || !end {
		return
	}
	m.mu.Lock()
	ended, asked := m.ended, m.prAsked
	m.mu.Unlock()
	if !ended {
		if retry(ctx, func() error {
			return r.call(ctx, EPEnd, r.o.RequestTimeout, func(ctx context.Context) error {
				_, err := r.api.EndMeeting(ctx, m.id)
				return err
			})
		}) != nil {
			return
		}
		m.mu.Lock()
		m.ended = true
		m.mu.Unlock()
	}
	if !r.o.PRAtEnd || asked {
		return
	}
	if retry(ctx, func() error { return r.generatePR(ctx, m, true) }) == nil {
		m.mu.Lock()
		m.prAsked = true
		m.mu.Unlock()
	}
}

// every calls fn(0), fn(1), ... at start, start+period, ... until ctx ends.
func (r *runner) every(ctx context.Context, start time.Time, period time.Duration, fn func(n int)) {
	for n := 0; ; n++ {
		if !sleepUntil(ctx, start.Add(time.Duration(n)*period)) {
			return
		}
		fn(n)
	}
}

// sleepUntil waits until t; false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// post sends up to maxBatch pending utterances of m once. On a 2xx answer
// they are acknowledged; otherwise they stay pending and go again with the
// next post (their segment ids make the repeat harmless).
func (r *runner) post(ctx context.Context, m *meetingRun) error {
	m.sending.Lock()
	defer m.sending.Unlock()
	m.mu.Lock()
	batch := append([]apiclient.Utterance(nil), m.pending[:min(len(m.pending), maxBatch)]...)
	m.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	var res apiclient.IngestResult
	err := r.call(ctx, EPUtterances, r.o.RequestTimeout, func(ctx context.Context) error {
		var err error
		res, err = r.api.PostUtterances(ctx, m.id, batch)
		if err == nil && res.Inserted+res.Duplicates != len(batch) {
			return &mismatchError{sent: len(batch), inserted: res.Inserted, duplicates: res.Duplicates}
		}
		return err
	})
	if err != nil {
		if _, mismatch := err.(*mismatchError); !mismatch {
			return err
		}
	}
	m.mu.Lock()
	for _, u := range batch {
		m.acked[u.SegmentID] = true
	}
	m.pending = m.pending[len(batch):]
	m.mu.Unlock()
	r.acked.Add(int64(len(batch)))
	return err
}

// ask asks m's n-th question over SSE and records the whole answer and the
// first token event.
func (r *runner) ask(ctx context.Context, m *meetingRun, n int) {
	req := apiclient.AskRequest{Question: r.text.question(m.slot, n), AskerID: "load-asker", AskerName: "Load"}
	start := time.Now()
	var first time.Time
	err := r.call(ctx, EPAsk, 2*r.o.RequestTimeout, func(ctx context.Context) error {
		_, err := r.api.AskStream(ctx, m.id, req, func(ev apiclient.AskEvent) error {
			if ev.Name == apiclient.AskEventToken && first.IsZero() {
				first = time.Now()
			}
			return nil
		})
		return err
	})
	if err == nil && !first.IsZero() {
		r.rec.Add(EPAskFirst, start, first, nil)
	}
}

// generatePR asks for m's PR once (waitL1: with the server's bounded wait
// for topics) and remembers the PR id it got.
func (r *runner) generatePR(ctx context.Context, m *meetingRun, waitL1 bool) error {
	return r.call(ctx, EPGeneratePR, r.o.RequestTimeout, func(ctx context.Context) error {
		ref, err := r.api.GeneratePR(ctx, m.id, waitL1)
		if err != nil {
			return err
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if _, seen := r.prSeen.LoadOrStore(ref.PRID, struct{}{}); !seen {
			m.prs = append(m.prs, ref.PRID)
		}
		return nil
	})
}

// settle delivers every meeting's pending utterances and, with PRAtEnd,
// ends it and asks for its PR (unless that was done during the run),
// retrying until ctx ends. Without PRAtEnd, meetings still running stay
// open.
func (r *runner) settle(ctx context.Context, ms []*meetingRun) {
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r.endMeeting(ctx, m, r.o.PRAtEnd)
		})
	}
	wg.Wait()
}

// waitPRs polls every PR id the run got until all are done or ctx ends,
// and returns their last state.
func (r *runner) waitPRs(ctx context.Context, ms []*meetingRun) map[string]apiclient.PR {
	out := map[string]apiclient.PR{}
	var ids []string
	for _, m := range ms {
		m.mu.Lock()
		ids = append(ids, m.prs...)
		m.mu.Unlock()
	}
	var mu sync.Mutex
	for len(ids) > 0 {
		var open []string
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				var pr apiclient.PR
				err := r.call(ctx, EPGetPR, r.o.RequestTimeout, func(ctx context.Context) error {
					var err error
					pr, err = r.api.GetPR(ctx, id)
					return err
				})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					out[id] = pr
				}
				if err != nil || !pr.Done() {
					open = append(open, id)
				}
			})
		}
		wg.Wait()
		ids = open
		if len(ids) == 0 || !sleepUntil(ctx, time.Now().Add(time.Second)) {
			break
		}
	}
	return out
}

// writeStatus rewrites the status file every second (and once more at
// the end) through a rename, so readers never see half a file.
func (r *runner) writeStatus(ctx context.Context) {
	write := func() {
		ok, failed := r.rec.Counts()
		body := fmt.Sprintf("phase=%s\nacked=%d\nok=%d\nerrors=%d\n", r.phase.Load(), r.acked.Load(), ok, failed)
		tmp := filepath.Join(filepath.Dir(r.o.StatusFile), "."+filepath.Base(r.o.StatusFile)+".tmp")
		if err := os.WriteFile(tmp, []byte(body), 0o644); err == nil {
			_ = os.Rename(tmp, r.o.StatusFile)
		}
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		write()
		select {
		case <-ctx.Done():
			write()
			return
		case <-t.C:
		}
	}
}
