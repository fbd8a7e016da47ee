package ask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/tokens"
	"github.com/mithub/mithub/pkg/wakeword"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
)

// Limits on a request.
const (
	MaxQuestionRunes = 4000
	MaxThreadIDLen   = 128
	// periodTurns bounds the turns read for a catch-up.
	periodTurns = 2000
)

// ErrInvalid: the request breaks a rule; the message says which.
var ErrInvalid = errors.New("invalid ask request")

// Store is the persistence the ask path reads and writes.
type Store interface {
	GetMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
	TranscriptRange(ctx context.Context, tenantID, meetingID string, fromSeq, toSeq, limit int) ([]store.Transcript, error)
	TranscriptsSince(ctx context.Context, tenantID, meetingID string, sinceMS int64, limit int) ([]store.Transcript, error)
	LatestCheckpoint(ctx context.Context, tenantID, meetingID, threadID string) (store.Checkpoint, error)
	SaveCheckpoint(ctx context.Context, tenantID string, cp store.Checkpoint) error
	PresenceOf(ctx context.Context, tenantID, meetingID, participantID string) ([]store.PresenceEvent, error)
}

// MemoryBank returns the team memory bank text for a meeting's project,
// or "" when there is none.
type MemoryBank func(ctx context.Context, tenantID string, m store.Meeting) (string, error)

// Service answers questions about meetings.
type Service struct {
	Store      Store
	Contexts   *meetingcache.Cache
	Planner    answer.Planner
	Answerer   answer.Answerer
	Counter    tokens.Counter
	MemoryBank MemoryBank // optional
	// Model and Window size the budget: Window × 0.90 − ReservedOutput;
	// Corrector, when set, scales counts to the provider's tokenizer.
	Model          string
	Window         int
	ReservedOutput int
	Corrector      *tokens.Corrector
	L1Wait         time.Duration
	Log            *slog.Logger
	// TopicCacheBytes bounds the indexed topic turns kept between asks
	// (a topic of 400 turns takes about 270 KB with its text); 0 takes
	// DefaultTopicCacheBytes, a negative value keeps none.
	TopicCacheBytes int64
	// TurnWeights fuse turn search's features (nil: meetingctx.DefaultTurnWeights).
	TurnWeights *meetingctx.TurnWeights
	// Wake finds the turns addressed to the bot, which are never evidence;
	// the default names when nil.
	Wake *wakeword.Matcher
	// CatchUpWindow is how far back a catch-up looks when the asker
	// neither left nor joined late (DefaultCatchUpWindow when 0).
	CatchUpWindow time.Duration

	topicsOnce sync.Once
	topics     *topicCache
	jobsOnce   sync.Once
	jobs       *embedJobs
	memoOnce   sync.Once
	memo       memoCounter
	prefixes   *answer.PrefixCounts
}

// Request is one question.
type Request struct {
	Question  string       `json:"question"`
	AskerID   string       `json:"asker_id"`
	AskerName string       `json:"asker_name"`
	ThreadID  string       `json:"thread_id"`
	Mode      askmode.Mode `json:"mode"`
	SinceMS   *int64       `json:"since_ms"`
	// QuestionSegmentID is the transcript segment the question was
	// heard in; it is never evidence, and a catch-up ends before it.
	QuestionSegmentID string `json:"question_segment_id"`
	// Debug returns the assembled context with the result.
	Debug bool `json:"-"`
}

// Result is a finished answer.
type Result struct {
	Answer        string            `json:"answer"`
	Citations     []answer.Citation `json:"citations"`
	Provider      string            `json:"provider"`
	ThreadID      string            `json:"thread_id"`
	Mode          askmode.Mode      `json:"mode"`
	Warnings      []string          `json:"warnings"`
	PendingTurns  int               `json:"pending_turns"`
	ContextTokens int               `json:"context_tokens"`
	// L1Waited: topics caught up within the L1 wait; when false, the turns
	// not yet in a topic were given raw.
	L1Waited bool   `json:"l1_waited"`
	SinceMS  *int64 `json:"since_ms,omitempty"`
	// UntilMS ends a catch-up window that closes before the question
	// (the recent minutes, or a late joiner's missed start).
	UntilMS *int64 `json:"until_ms,omitempty"`
	// Window says which catch-up rule chose the period: since_ms,
	// since_left, since_joined or recent.
	Window  string      `json:"window,omitempty"`
	Plan    answer.Plan `json:"plan"`
	Timings Timings     `json:"timings"`
	Debug   *Debug      `json:"debug,omitempty"`
}

// Timings are the server-side durations of an answer, in milliseconds.
type Timings struct {
	// Prepare: sync, L1 wait, plan, search, reads and the context build.
	PrepareMS float64 `json:"prepare_ms"`
	// Build: packing the context into the budget.
	BuildMS float64 `json:"build_ms"`
	// L1Wait: time spent waiting for topics.
	L1WaitMS float64 `json:"l1_wait_ms"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Debug is the assembled context with its token accounting.
type Debug struct {
	System   string           `json:"system"`
	User     string           `json:"user"`
	Sections []answer.Section `json:"sections"`
	Total    int              `json:"total_tokens"`
	// Exact is the count of the joined prompt; Total, the sum of its
	// parts, is never below it.
	Exact  int `json:"exact_tokens"`
	Budget int `json:"budget_tokens"`
	Window int `json:"window_tokens"`
}

// Prepared is a question with its context built, ready to answer.
type Prepared struct {
	tenantID string
	meeting  store.Meeting
	req      Request
	mode     askmode.Mode
	plan     answer.Plan
	ctx      answer.Context
	prevStep int
	prev     *answer.Exchange
	pending  int
	waited   bool
	sinceMS  *int64
	untilMS  *int64
	window   string
	warnings []string
	timings  Timings
}

// state is a thread checkpoint.
type state struct {
	answer.Exchange
	Mode askmode.Mode `json:"mode"`
	Plan answer.Plan  `json:"plan"`
}

// Validate checks a request and fills defaults.
func (r *Request) Validate() error {
	r.Question = strings.TrimSpace(r.Question)
	mode, err := askmode.Parse(string(r.Mode))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	r.Mode = mode
	if r.Mode == askmode.Answer && r.Question == "" {
		return fmt.Errorf("%w: question is required", ErrInvalid)
	}
	if n := utf8.RuneCountInString(r.Question); n > MaxQuestionRunes {
		return fmt.Errorf("%w: question has %d characters, the limit is %d", ErrInvalid, n, MaxQuestionRunes)
	}
	if len(r.ThreadID) > MaxThreadIDLen || strings.ContainsFunc(r.ThreadID, func(c rune) bool { return c < 0x21 || c == 0x7f }) {
		return fmt.Errorf("%w: thread_id must be at most %d printable characters without spaces", ErrInvalid, MaxThreadIDLen)
	}
	if r.SinceMS != nil && *r.SinceMS < 0 {
		return fmt.Errorf("%w: since_ms must not be negative", ErrInvalid)
	}
	if len(r.AskerID) > 256 || len(r.AskerName) > 256 {
		return fmt.Errorf("%w: asker_id and asker_name are limited to 256 bytes", ErrInvalid)
	}
	if len(r.QuestionSegmentID) > store.MaxSegmentIDLen || !utf8.ValidString(r.QuestionSegmentID) ||
		strings.ContainsFunc(r.QuestionSegmentID, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return fmt.Errorf("%w: question_segment_id must be at most %d bytes of printable UTF-8", ErrInvalid, store.MaxSegmentIDLen)
	}
	return nil
}

// Prepare validates the request and builds the context. Every error it
// returns comes before any answer is written: a bad request
// (ErrInvalid), an unknown meeting (store.ErrNotFound) or a store
// failure.
func (s *Service) Prepare(ctx context.Context, tenantID, meetingID string, req Request) (*Prepared, error) {
	start := time.Now()
	if err := req.Validate(); err != nil {
		return nil, err
	}
	mt, err := s.Store.GetMeeting(ctx, tenantID, meetingID)
	if err != nil {
		return nil, err
	}
	// The memory bank is read while the rest is prepared.
	bank := s.memoryBank(ctx, tenantID, mt)
	// Rows a worker wrote straight to Postgres join the context first;
	// the meeting row says whether there are any.
	m, err := s.Contexts.GetAt(ctx, tenantID, meetingID, mt)
	if err != nil {
		return nil, err
	}
	p := &Prepared{tenantID: tenantID, meeting: mt, req: req, mode: req.Mode, prevStep: -1, warnings: []string{}}
	if p.req.ThreadID == "" {
		p.req.ThreadID = uuid.NewString()
	} else if err := s.loadThread(ctx, p); err != nil {
		return nil, err
	}
	waitStart := time.Now()
	p.waited = m.WaitL1(ctx, s.L1Wait)
	p.timings.L1WaitMS = ms(time.Since(waitStart))
	snap := m.Snapshot()
	p.pending = len(snap.Pending)

	p.plan, err = s.Planner.Plan(ctx, answer.PlanInput{Mode: p.mode, Question: req.Question, Previous: p.prev, Topics: len(snap.Topics), Turns: snap.Turns})
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	in := answer.Input{
		Mode: p.mode, Question: p.req.Question, Previous: p.prev,
		Exclude: &answer.Exclusion{Segments: map[string]bool{p.req.QuestionSegmentID: p.req.QuestionSegmentID != ""}, Wake: s.wake()},
		Facts:   answer.Facts{ID: mt.ID, Title: mt.Title, Language: mt.Language, Status: mt.Status, StartedAt: mt.StartedAt, Turns: snap.Turns},
		Recent:  snap.L0, Pending: snap.Pending, Topics: snap.Topics, Speakers: snap.Speakers,
		Counter: s.counter(), Prefixes: s.prefixCounts(), Budget: tokens.NewBudget(s.Window, s.ReservedOutput).Available(),
		// Ingest counted turns with the same counter; a learned correction
		// makes those counts stale.
		StoredTokens: s.Corrector == nil || s.Corrector.Factor(s.Model) == 1,
		Exact:        req.Debug,
		TurnsOnly:    !req.Debug && !answer.ReadsPrompt(s.Answerer),
	}
	if p.plan.NeedSearch {
		if in.Searched, err = s.searched(ctx, p, m, snap); err != nil {
			return nil, err
		}
	}
	if p.mode == askmode.CatchUp {
		if in.Since, in.SinceMS, err = s.period(ctx, p, snap); err != nil {
			return nil, err
		}
	}
	in.MemoryBank = bank()
	buildStart := time.Now()
	if p.ctx, err = answer.Build(in); err != nil {
		return nil, err
	}
	p.timings.BuildMS = ms(time.Since(buildStart))
	p.timings.PrepareMS = ms(time.Since(start))
	return p, nil
}

// memoryBank starts reading the meeting's memory bank and returns a
// function that waits for it: "" when there is none or it is unreadable
// (the answer goes on without it).
func (s *Service) memoryBank(ctx context.Context, tenantID string, mt store.Meeting) func() string {
	if s.MemoryBank == nil {
		return func() string { return "" }
	}
	type result struct {
		text string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		text, err := s.MemoryBank(ctx, tenantID, mt)
		ch <- result{text, err}
	}()
	return func() string {
		r := <-ch
		if r.err != nil {
			s.Log.WarnContext(ctx, "memory bank unavailable for ask", "meeting_id", mt.ID, "err", r.err)
			return ""
		}
		return r.text
	}
}

// counter counts in the provider's tokens when usage taught a correction.
func (s *Service) counter() tokens.Counter {
	s.initMemo()
	if s.Corrector == nil {
		return s.memo
	}
	return corrected{s.memo, s.Corrector, s.Model}
}

// prefixCounts keeps line-prefix counts across asks; it goes with
// counter, which counts the same as the memo whenever prefixes are used
// (turns' stored counts are trusted only without a correction).
func (s *Service) prefixCounts() *answer.PrefixCounts {
	s.initMemo()
	return s.prefixes
}

func (s *Service) initMemo() {
	s.memoOnce.Do(func() { s.memo, s.prefixes = newMemoCounter(s.Counter), answer.NewPrefixCounts() })
}

type corrected struct {
	tokens.Counter
	corr  *tokens.Corrector
	model string
}

func (c corrected) Count(text string) int { return c.corr.Adjust(c.model, c.Counter.Count(text)) }

func (s *Service) loadThread(ctx context.Context, p *Prepared) error {
	cp, err := s.Store.LatestCheckpoint(ctx, p.tenantID, p.meeting.ID, p.req.ThreadID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var st state
	if err := json.Unmarshal(cp.State, &st); err != nil {
		// An unreadable checkpoint starts the thread afresh.
		s.Log.WarnContext(ctx, "unreadable ask checkpoint", "thread_id", p.req.ThreadID, "step", cp.Step, "err", err)
		p.prevStep = cp.Step
		return nil
	}
	p.prevStep, p.prev = cp.Step, &st.Exchange
	return nil
}

// searched selects an answer's evidence with turn search (the same as
// GET /v1/meetings/{id}/search): the best turns for the plan's query,
// grouped by topic.
func (s *Service) searched(ctx context.Context, p *Prepared, m *meetingctx.Manager, snap meetingctx.Snapshot) ([]answer.SearchedTopic, error) {
	hits, err := s.searchTurns(ctx, p.tenantID, p.meeting.ID, m, snap, p.plan.NextSubquery, askTurnHits, false)
	if err != nil {
		return nil, err
	}
	return s.searchedFromTurns(ctx, p.tenantID, p.meeting.ID, snap, hits)
}

// topicTurns returns a topic's turns, indexed for scoring, from the cache
// or from the store. A topic that grows or merges gets a new key.
func (s *Service) topicTurns(ctx context.Context, tenantID, meetingID string, t meetingctx.Topic) (*answer.TurnIndex, error) {
	c := s.topicCache()
	key := topicKeyOf(tenantID, meetingID, t)
	if docs, ok := c.get(key); ok {
		return docs, nil
	}
	rows, err := s.readTopic(ctx, tenantID, meetingID, t)
	if err != nil {
		return nil, err
	}
	docs := answer.NewTurnIndex(meetingcache.Turns(rows))
	c.add(key, t.MergedFrom, docs)
	return docs, nil
}

func (s *Service) topicCache() *topicCache {
	s.topicsOnce.Do(func() {
		n := s.TopicCacheBytes
		if n == 0 {
			n = DefaultTopicCacheBytes
		}
		s.topics = newTopicCache(n)
	})
	return s.topics
}

func (s *Service) embedJobs() *embedJobs {
	s.jobsOnce.Do(func() { s.jobs = newEmbedJobs() })
	return s.jobs
}

// WaitEmbeddings waits for the background embeddings started so far (the
// turns an ask found without cached embeddings). Call it while no ask or
// search runs.
func (s *Service) WaitEmbeddings() { s.embedJobs().wait() }

// ForgetMeeting drops the cached topics of a meeting whose context left
// memory: they are read again if it is asked about.
func (s *Service) ForgetMeeting(tenantID, meetingID string) {
	s.topicCache().dropMeeting(tenantID, meetingID)
}

// TopicCacheStats returns the topics whose indexed turns are cached and
// their estimated size in bytes.
func (s *Service) TopicCacheStats() (topics int, bytes int64) { return s.topicCache().stats() }

// DefaultCatchUpWindow is how far back a catch-up looks by default.
const DefaultCatchUpWindow = 5 * time.Minute

// PresenceLagMS is how late LiveKit may report a participant leaving or
// joining: it batches the updates of participants without tracks.
const PresenceLagMS = 3000

// Catch-up windows (Result.Window).
const (
	WindowSinceMS     = "since_ms"
	WindowSinceLeft   = "since_left"
	WindowSinceJoined = "since_joined"
	WindowRecent      = "recent"
)

func (s *Service) wake() *wakeword.Matcher {
	if s.Wake != nil {
		return s.Wake
	}
	return defaultWake
}

var defaultWake = wakeword.MustDefault()

// period reads the catch-up turns. The window is, first match wins:
//   - since since_ms, when given;
//   - since the asker last left, when they left before the question: the
//     departure is taken PresenceLagMS early (LiveKit reports it late),
//     but not before the end of the asker's own last words before it;
//   - from the meeting's start to the asker's first join, when they
//     joined late (later than PresenceLagMS after the first turn);
//   - the CatchUpWindow before the question.
//
// The question's own turn and the turns addressed to the bot are never
// in it (answer.Exclusion), and a window without any other turn is widened
// to everything before the question.
func (s *Service) period(ctx context.Context, p *Prepared, snap meetingctx.Snapshot) ([]meetingctx.Turn, int64, error) {
	qMS, qSeq := questionTime(p, snap)
	var since int64
	until := int64(math.MaxInt64)
	var afterSeq = -1 // turns at or before it are left out
	window := WindowRecent
	switch {
	case p.req.SinceMS != nil:
		since, window = *p.req.SinceMS, WindowSinceMS
	case p.req.AskerID == "":
		p.warnings = append(p.warnings, "no since_ms and no asker_id: catching up on the minutes before the question")
	default:
		evs, err := s.Store.PresenceOf(ctx, p.tenantID, p.meeting.ID, p.req.AskerID)
		if err != nil {
			return nil, 0, err
		}
		var left, joined int64 = -1, -1
		for _, e := range evs {
			switch {
			case e.Kind == store.PresenceLeft && e.AtMS <= qMS:
				left = e.AtMS
			case e.Kind == store.PresenceJoined && joined < 0:
				joined = e.AtMS
			}
		}
		switch {
		case left >= 0:
			window, since = WindowSinceLeft, max(left-PresenceLagMS, 0)
			// The asker was there while they spoke: the window starts
			// after their last words before leaving.
			rows, err := s.Store.TranscriptsSince(ctx, p.tenantID, p.meeting.ID, since, periodTurns)
			if err != nil {
				return nil, 0, err
			}
			for _, r := range rows {
				if r.SpeakerID == p.req.AskerID && r.StartMS <= left {
					since, afterSeq = max(since, r.EndMS), r.Seq
				}
			}
		case joined >= 0:
			first, err := s.Store.TranscriptRange(ctx, p.tenantID, p.meeting.ID, 0, 0, 1)
			if err != nil {
				return nil, 0, err
			}
			if len(first) == 1 && joined > first[0].StartMS+PresenceLagMS {
				window, since, until = WindowSinceJoined, 0, joined
			}
		}
	}
	if window == WindowRecent {
		w := s.CatchUpWindow
		if w <= 0 {
			w = DefaultCatchUpWindow
		}
		since, until = max(qMS-w.Milliseconds(), 0), qMS
	}
	turns, err := s.periodTurns(ctx, p, since, until, afterSeq, qSeq)
	if err != nil {
		return nil, 0, err
	}
	if !s.hasEvidence(p, turns) && (since > 0 || until < qMS) {
		p.warnings = append(p.warnings, fmt.Sprintf("nothing was said in the %s window: catching up on the whole meeting before the question", window))
		since, until, afterSeq = 0, qMS, -1
		if turns, err = s.periodTurns(ctx, p, since, until, afterSeq, qSeq); err != nil {
			return nil, 0, err
		}
	}
	p.sinceMS, p.window = &since, window
	if until != math.MaxInt64 {
		p.untilMS = &until
	}
	return turns, since, nil
}

// periodTurns reads the turns starting in [since, until], after afterSeq,
// and before the question's turn (qSeq, when known).
func (s *Service) periodTurns(ctx context.Context, p *Prepared, since, until int64, afterSeq, qSeq int) ([]meetingctx.Turn, error) {
	rows, err := s.Store.TranscriptsSince(ctx, p.tenantID, p.meeting.ID, since, periodTurns)
	if err != nil {
		return nil, err
	}
	kept := rows[:0]
	for _, r := range rows {
		if r.StartMS > until || r.Seq <= afterSeq || (qSeq >= 0 && r.Seq == qSeq) {
			continue
		}
		kept = append(kept, r)
	}
	return meetingcache.Turns(kept), nil
}

// hasEvidence: a turn that is neither the question nor addressed to the
// bot.
func (s *Service) hasEvidence(p *Prepared, ts []meetingctx.Turn) bool {
	for _, t := range ts {
		if t.SegmentID != p.req.QuestionSegmentID && !s.wake().Contains(t.Text) {
			return true
		}
	}
	return false
}

// questionTime returns when the question was asked, in ms after the
// meeting's start, and its turn's seq (-1 when not a turn): its own turn
// when question_segment_id names one, else the end of the latest turn.
func questionTime(p *Prepared, snap meetingctx.Snapshot) (int64, int) {
	var latest int64
	for _, ts := range [][]meetingctx.Turn{snap.L0, snap.Pending} {
		for _, t := range ts {
			if p.req.QuestionSegmentID != "" && t.SegmentID == p.req.QuestionSegmentID {
				return t.StartMS, t.Seq
			}
			latest = max(latest, t.EndMS)
		}
	}
	if p.req.QuestionSegmentID != "" {
		p.warnings = append(p.warnings, "question_segment_id "+p.req.QuestionSegmentID+" is not among the meeting's latest turns")
	}
	if latest == 0 {
		latest = max(time.Since(p.meeting.StartedAt).Milliseconds(), 0)
	}
	return latest + 1, -1
}

// Answer answers a prepared question, calling onToken with each piece of
// the answer, and records the exchange in the thread.
func (s *Service) Answer(ctx context.Context, p *Prepared, onToken func(string) error) (Result, error) {
	started := false
	ans, err := s.Answerer.Answer(ctx, p.ctx, p.mode, p.plan.NextSubquery, func(tok string) error {
		started = true
		return onToken(tok)
	})
	if err != nil && !started && ctx.Err() == nil && answer.ReadsPrompt(s.Answerer) {
		// The model failed before its first token (timeout, error, an
		// unreadable reply): the asker gets an extractive answer from the
		// same context rather than none, and is told why.
		s.Log.WarnContext(ctx, "model did not answer; answering extractively", "meeting_id", p.meeting.ID, "err", err)
		why := "it failed or its reply was unreadable"
		if errors.Is(err, context.DeadlineExceeded) {
			why = "it timed out"
		}
		if ans, err = (answer.Extractive{}).Answer(ctx, p.ctx, p.mode, p.plan.NextSubquery, onToken); err == nil {
			ans.Warnings = append(ans.Warnings, "the model did not answer ("+why+"), so this answer quotes the transcript instead")
		}
	}
	if err != nil {
		return Result{}, err
	}
	res := Result{
		Answer: ans.Text, Citations: ans.Citations, Provider: ans.Provider, ThreadID: p.req.ThreadID,
		Mode: p.req.Mode, Warnings: append(p.warnings, ans.Warnings...), PendingTurns: p.pending,
		ContextTokens: p.ctx.Total, L1Waited: p.waited, SinceMS: p.sinceMS, UntilMS: p.untilMS, Window: p.window, Plan: p.plan,
		Timings: p.timings,
	}
	if p.req.Debug {
		res.Debug = &Debug{System: p.ctx.System, User: p.ctx.User, Sections: p.ctx.Sections, Total: p.ctx.Total,
			Exact: p.ctx.ExactTotal, Budget: p.ctx.Budget, Window: s.Window}
	}
	st := state{Exchange: answer.Exchange{Question: p.req.Question, Query: p.plan.NextSubquery, Answer: ans.Text}, Mode: p.req.Mode, Plan: p.plan}
	for _, c := range ans.Citations {
		st.Cited = append(st.Cited, c.Seq)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return Result{}, err
	}
	// The answer stands even if the thread cannot be saved; the caller is
	// told, and the next question starts from the last saved step.
	if err := s.Store.SaveCheckpoint(ctx, p.tenantID, store.Checkpoint{
		ThreadID: p.req.ThreadID, MeetingID: p.meeting.ID, Step: p.prevStep + 1, State: raw,
	}); err != nil {
		s.Log.WarnContext(ctx, "save ask checkpoint", "thread_id", p.req.ThreadID, "meeting_id", p.meeting.ID, "err", err)
		res.Warnings = append(res.Warnings, "this exchange was not saved to the thread: "+checkpointReason(err))
	}
	return res, nil
}

func checkpointReason(err error) string {
	if errors.Is(err, store.ErrConflict) {
		return "the thread belongs to another meeting or another answer was saved at the same time"
	}
	return "storage error"
}
