package meetingctx

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// tailTurns is how many turns of the last topic a segmenter sees.
const tailTurns = 10

// chunkDueLocked reports whether the topic buffer holds a chunk to cut.
func (m *Manager) chunkDueLocked() bool {
	n := len(m.pending)
	return n > 0 && (n >= m.cfg.ChunkTurns || n >= m.cfg.BufferMaxTurns ||
		m.pendTokens >= m.cfg.BufferMaxTokens || m.flush)
}

// workDueLocked reports whether the runner has work: a chunk to cut or
// the end-of-meeting pass.
func (m *Manager) workDueLocked() bool {
	return m.chunkDueLocked() || m.endPassDueLocked()
}

// kickLocked starts the meeting's runner when work is due.
func (m *Manager) kickLocked() {
	if m.eng == nil || m.running || m.retired || !m.workDueLocked() {
		return
	}
	if !m.ownerLocked() && m.waiting {
		// Another process owns the meeting; the retry comes.
		return
	}
	if !m.eng.start() {
		return
	}
	m.running = true
	go m.run()
}

// notifyLocked wakes everyone waiting for L1 progress.
func (m *Manager) notifyLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// Flush asks for the partial last chunk to be segmented too (the meeting
// ended).
func (m *Manager) Flush() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.flush = true
	m.kickLocked()
}

// Retire stops the runner after its current chunk; the cache calls it on
// eviction so a rebuilt context does not race an orphaned one.
func (m *Manager) Retire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.retired = true
	if !m.running {
		m.releaseLocked()
	}
}

// WaitL1 waits until no chunk or end-of-meeting pass is due or running,
// at most d. It
// reports whether L1 caught up; either way the caller's snapshot has every
// turn, the unsegmented ones in Pending.
func (m *Manager) WaitL1(ctx context.Context, d time.Duration) bool {
	after := newTimer
	if m.eng != nil {
		after = m.eng.deps.After
	}
	expired, stop := after(d)
	defer stop()
	for {
		m.mu.Lock()
		idle := !m.running && !m.workDueLocked()
		if !idle && m.eng == nil {
			idle = true
		}
		ch := m.changed
		m.mu.Unlock()
		if idle {
			return true
		}
		select {
		case <-ch:
		case <-expired:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// run segments chunks until none is due, then runs the end-of-meeting
// pass when it is due.
func (m *Manager) run() {
	defer m.eng.runners.Done()
	for {
		if !m.claim() {
			return
		}
		in, endPass, ok := m.takeWork()
		switch {
		case !ok:
			return
		case endPass:
			m.endPass()
		default:
			m.processChunk(in)
		}
	}
}

// takeWork returns the next chunk, or endPass when the buffer is empty and
// the end-of-meeting pass is due; !ok stops the runner.
func (m *Manager) takeWork() (in SegmentInput, endPass, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.retired || !m.workDueLocked() || m.eng.ctx.Err() != nil {
		m.running = false
		m.notifyLocked()
		if m.retired {
			m.releaseLocked()
		}
		return SegmentInput{}, false, false
	}
	if !m.chunkDueLocked() {
		return SegmentInput{}, true, true
	}
	n, tokens := 0, 0
	for n < len(m.pending) && n < m.cfg.ChunkTurns {
		if n > 0 && tokens+m.pending[n].Tokens > m.cfg.BufferMaxTokens {
			break
		}
		tokens += m.pending[n].Tokens
		n++
	}
	in = SegmentInput{Turns: append([]Turn(nil), m.pending[:n]...), Earlier: copyTopics(m.topics)}
	if k := len(m.topics); k > 0 {
		prev := in.Earlier[k-1]
		in.Previous = &prev
		in.PreviousTurns = m.l1TailLocked()
	}
	if n == len(m.pending) && !m.ended {
		m.flush = false
	}
	return in, false, true
}

// dropFront removes the first n turns. The rest moves to a new array
// when the old one is more than twice what it holds (or twice a chunk of
// chunk turns, whichever is more), so a backlog that
// has been segmented (after a slow or failed provider) does not keep its
// array, and the turns in it, for the rest of the meeting.
func dropFront(ts []Turn, n, chunk int) []Turn {
	rest := ts[n:]
	if cap(ts) <= 2*max(len(rest), chunk) {
		return rest
	}
	if len(rest) == 0 {
		return nil
	}
	return append(make([]Turn, 0, 2*len(rest)), rest...)
}

// l1TailLocked returns a copy of the last turns covered by topics.
func (m *Manager) l1TailLocked() []Turn {
	return append([]Turn(nil), m.l1Tail...)
}

// processChunk segments one chunk, folds it into L1, merges, embeds and
// saves. Provider failures never lose a turn: a failed segmentation
// becomes one fallback topic, a failed summary keeps the segmenter's or the
// fallback text, a failed embedding stays nil and is retried later.
func (m *Manager) processChunk(in SegmentInput) {
	log := m.eng.deps.Log.With("meeting_id", m.meetingID)
	first, last := in.Turns[0].Seq, in.Turns[len(in.Turns)-1].Seq
	var out SegmentOutput
	err := m.eng.call(func(ctx context.Context) error {
		var err error
		out, err = m.eng.deps.Segmenter.Segment(ctx, in)
		return err
	})
	if err != nil {
		log.Warn("topic segmentation failed; using the segmenter's fallback", "first_seq", first, "last_seq", last, "err", err)
		if len(out.Segments) == 0 {
			out = SegmentOutput{ContinueTo: -1}
		}
	}
	out = repair(in, out)

	newTopics := make([]Topic, 0, len(out.Segments))
	for _, s := range out.Segments {
		turns := in.Turns[s.StartSeq-first : s.EndSeq-first+1]
		sum := Summary{Title: s.Title, Summary: s.Summary, Keywords: s.Keywords}
		if sum.Summary == "" || sum.Title == "" {
			sum = m.summarize(turns, nil, fallbackSummary(turns))
		}
		startMS, endMS := timeSpan(turns)
		newTopics = append(newTopics, Topic{
			ID: uuid.NewString(), Title: sum.Title, Summary: clip(sum.Summary, 120), Keywords: sum.Keywords,
			StartSeq: s.StartSeq, EndSeq: s.EndSeq, StartMS: startMS, EndMS: endMS, Version: 1,
		})
	}
	var extended *Topic
	if out.ContinueTo >= first && in.Previous != nil {
		cont := in.Turns[:out.ContinueTo-first+1]
		prev := *in.Previous
		sum := m.summarize(append(append([]Turn(nil), in.PreviousTurns...), cont...), []Topic{prev},
			Summary{Title: prev.Title, Summary: prev.Summary, Keywords: prev.Keywords})
		prev.Title, prev.Summary, prev.Keywords = sum.Title, clip(sum.Summary, 120), sum.Keywords
		startMS, endMS := timeSpan(cont)
		prev.EndSeq = out.ContinueTo
		prev.StartMS, prev.EndMS = min(prev.StartMS, startMS), max(prev.EndMS, endMS)
		prev.Version++
		prev.Embedding = nil
		extended = &prev
	}

	m.mu.Lock()
	if m.l1Cursor != first-1 {
		// Another runner (a rebuilt context) got here first.
		m.mu.Unlock()
		return
	}
	if extended != nil {
		k := len(m.topics) - 1
		m.lex[k] = m.lex[k].merge(indexTurns(in.Turns[:out.ContinueTo-first+1]))
		m.topics[k] = *extended
	}
	for _, t := range newTopics {
		t.Seq = len(m.topics)
		m.topics = append(m.topics, t)
		m.lex = append(m.lex, indexTurns(in.Turns[t.StartSeq-first:t.EndSeq-first+1]))
	}
	m.pending = dropFront(m.pending, len(in.Turns), m.cfg.ChunkTurns)
	for _, t := range in.Turns {
		m.pendTokens -= t.Tokens
	}
	m.l1Cursor = last
	m.l1Tail = append(m.l1Tail, in.Turns...)
	if len(m.l1Tail) > tailTurns {
		m.l1Tail = append([]Turn(nil), m.l1Tail[len(m.l1Tail)-tailTurns:]...)
	}
	m.dirty = true
	m.mu.Unlock()
	m.settleTopics()
}

// settleTopics follows a change of the topics: embeds the new ones,
// merges over the cap, saves, and wakes those waiting for L1 progress.
func (m *Manager) settleTopics() {
	m.embedMissing()
	m.mergeOverCap()
	m.embedMissing()
	m.save()
	m.mu.Lock()
	m.notifyLocked()
	m.mu.Unlock()
}

// summarize asks the summarizer, falling back to fb on failure.
func (m *Manager) summarize(turns []Turn, hints []Topic, fb Summary) Summary {
	var sum Summary
	err := m.eng.call(func(ctx context.Context) error {
		var err error
		sum, err = m.eng.deps.Summarizer.Summarize(ctx, turns, hints)
		return err
	})
	if err != nil || strings.TrimSpace(sum.Summary) == "" {
		if err != nil {
			m.eng.deps.Log.Warn("summary failed; keeping fallback text", "meeting_id", m.meetingID, "err", err)
		}
		return fb
	}
	if sum.Title == "" {
		sum.Title = fb.Title
	}
	return sum
}

// timeSpan is the time the turns span: the earliest start and the latest
// end. Turns are in seq order, which is the order they were stored in;
// concurrent writers can store a later-spoken turn first, so neither the
// first turn's start nor the last turn's end bounds the span.
func timeSpan(turns []Turn) (startMS, endMS int64) {
	startMS, endMS = turns[0].StartMS, turns[0].EndMS
	for _, t := range turns[1:] {
		startMS, endMS = min(startMS, t.StartMS), max(endMS, t.EndMS)
	}
	return startMS, max(startMS, endMS)
}

// repair makes a segmenter's answer cover the chunk exactly: ContinueTo
// inside the chunk (or -1), segments in order with no gap or overlap.
// Missing stretches become fallback segments Topic_{start}_{end}.
func repair(in SegmentInput, out SegmentOutput) SegmentOutput {
	first, last := in.Turns[0].Seq, in.Turns[len(in.Turns)-1].Seq
	cont := out.ContinueTo
	if in.Previous == nil || cont < first {
		cont = first - 1
	}
	cont = min(cont, last)
	next := cont + 1
	var segs []Segment
	for _, s := range out.Segments {
		s.StartSeq = max(s.StartSeq, next)
		s.EndSeq = min(s.EndSeq, last)
		if s.EndSeq < s.StartSeq {
			continue
		}
		if s.StartSeq > next {
			segs = append(segs, fallbackSegment(in, next, s.StartSeq-1))
		}
		segs = append(segs, s)
		next = s.EndSeq + 1
	}
	if next <= last {
		segs = append(segs, fallbackSegment(in, next, last))
	}
	return SegmentOutput{ContinueTo: max(cont, -1), Segments: segs}
}

func fallbackSegment(in SegmentInput, start, end int) Segment {
	first := in.Turns[0].Seq
	sum := fallbackSummary(in.Turns[start-first : end-first+1])
	return Segment{StartSeq: start, EndSeq: end, Title: fmt.Sprintf("Topic_%d_%d", start, end), Summary: sum.Summary}
}

// fallbackSummary is the first substantial turn, clipped.
func fallbackSummary(turns []Turn) Summary {
	best := turns[0]
	for _, t := range turns {
		if utf8.RuneCountInString(t.Text) > 20 {
			best = t
			break
		}
	}
	return Summary{
		Title:   fmt.Sprintf("Topic_%d_%d", turns[0].Seq, turns[len(turns)-1].Seq),
		Summary: clip(strings.TrimSpace(best.Text), 120),
	}
}

// clip cuts s to at most n runes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// embedText is what a topic's embedding represents.
func embedText(t Topic) string {
	return t.Title + ". " + t.Summary + " " + strings.Join(t.Keywords, " ")
}

// embedMissing embeds every topic without a vector in one batch call.
func (m *Manager) embedMissing() {
	m.mu.Lock()
	var (
		ids   []string
		vers  []int
		texts []string
	)
	for _, t := range m.topics {
		if t.Embedding == nil {
			ids, vers, texts = append(ids, t.ID), append(vers, t.Version), append(texts, embedText(t))
		}
	}
	m.mu.Unlock()
	if len(texts) == 0 {
		return
	}
	var vecs [][]float32
	err := m.eng.call(func(ctx context.Context) error {
		var err error
		vecs, err = m.eng.deps.Embedder.Embed(ctx, texts)
		return err
	})
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	if err != nil {
		m.eng.deps.Log.Warn("embedding failed; topics stay unembedded and are retried", "meeting_id", m.meetingID, "topics", len(texts), "err", err)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, id := range ids {
		for k := range m.topics {
			if m.topics[k].ID == id && m.topics[k].Version == vers[i] && !zero(vecs[i]) {
				m.topics[k].Embedding = vecs[i]
				m.dirty = true
			}
		}
	}
}

func zero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// save writes the topics when they changed; a failure leaves them dirty
// for the next chunk.
func (m *Manager) save() {
	m.mu.Lock()
	if !m.dirty {
		m.mu.Unlock()
		return
	}
	topics, cursor, endPass := copyTopics(m.topics), m.l1Cursor, m.saveEnd
	m.dirty, m.saveEnd = false, false
	m.mu.Unlock()
	if m.eng.shared() && !m.eng.deps.Owner.Held(m.eng.ctx, m.meetingID) {
		// The meeting was taken over while this chunk ran: the new owner
		// segments it again from the store.
		m.eng.deps.Log.Warn("L1 ownership lost during a chunk; not saving", "meeting_id", m.meetingID)
		return
	}
	err := m.eng.call(func(ctx context.Context) error {
		if es, ok := m.eng.deps.Store.(EndPassStore); ok && endPass {
			return es.SaveEndPass(ctx, m.tenantID, m.meetingID, cursor, topics)
		}
		return m.eng.deps.Store.SaveTopics(ctx, m.tenantID, m.meetingID, cursor, topics)
	})
	if err != nil {
		m.eng.deps.Log.Warn("saving topics failed; retried after the next chunk", "meeting_id", m.meetingID, "err", err)
		m.mu.Lock()
		m.dirty = true
		m.saveEnd = m.saveEnd || endPass
		m.mu.Unlock()
	}
}
