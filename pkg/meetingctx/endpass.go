package meetingctx

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// Finish marks the meeting ended: the partial last chunk is segmented
// (as with Flush), then, when the engine's segmenter is a
// MeetingSegmenter and the engine has a TurnSource, the end-of-meeting
// pass re-segments every stored turn in one pass and its segments replace
// the live topics. Live segmentation sees one chunk and a few turns
// before it; the end pass sees each gap's whole neighbourhood and the
// meeting's length, so an ended meeting's topics are those of an offline
// pass over the same turns. Turns that arrive after the end are segmented
// at once and get the pass again.
func (m *Manager) Finish() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ended, m.flush = true, true
	m.kickLocked()
}

// endPassDueLocked reports whether the end-of-meeting pass should run: the
// meeting ended, every turn is in a topic, and the pass has not covered
// the last one yet.
func (m *Manager) endPassDueLocked() bool {
	return m.ended && len(m.pending) == 0 && m.l1Cursor >= 0 && m.endPassAt < m.l1Cursor &&
		m.eng != nil && m.eng.endPassEnabled()
}

// endPassEnabled reports whether the engine can run end-of-meeting passes.
func (e *Engine) endPassEnabled() bool {
	_, ok := e.deps.Segmenter.(MeetingSegmenter)
	return ok && e.deps.Turns != nil
}

// endPass runs the end-of-meeting pass over turns 0..l1Cursor. A failure
// keeps the live topics (they already cover every turn) and is not
// retried until more turns arrive.
func (m *Manager) endPass() {
	log := m.eng.deps.Log.With("meeting_id", m.meetingID)
	m.mu.Lock()
	upTo := m.l1Cursor
	m.endPassAt = upTo
	turns := m.restored
	m.restored = nil
	m.mu.Unlock()

	var err error
	if len(turns) > upTo {
		turns = turns[:upTo+1]
	} else {
		err = m.eng.call(func(ctx context.Context) error {
			var err error
			turns, err = m.eng.deps.Turns.LoadTurns(ctx, m.tenantID, m.meetingID, upTo)
			return err
		})
	}
	if err == nil && (len(turns) != upTo+1 || turns[0].Seq != 0 || turns[len(turns)-1].Seq != upTo) {
		err = fmt.Errorf("loaded %d turns, want seq 0..%d", len(turns), upTo)
	}
	var segs []Segment
	if err == nil {
		err = m.eng.call(func(ctx context.Context) error {
			var err error
			segs, err = m.eng.deps.Segmenter.(MeetingSegmenter).SegmentMeeting(ctx, turns)
			return err
		})
	}
	if err == nil {
		err = checkCover(segs, upTo)
	}
	if err != nil {
		log.Warn("end-of-meeting pass failed; keeping the live topics", "last_seq", upTo, "err", err)
		if m.recordsEndPass() {
			// Other processes learn that the pass ran, so none runs it
			// again over the same turns.
			m.mu.Lock()
			if m.l1Cursor == upTo && !m.retired {
				m.dirty, m.saveEnd = true, true
			}
			m.mu.Unlock()
			m.settleTopics()
		}
		return
	}

	m.mu.Lock()
	old := copyTopics(m.topics)
	m.mu.Unlock()
	topics := m.realign(old, segs, turns)

	m.mu.Lock()
	if m.l1Cursor != upTo || m.retired {
		// Turns arrived meanwhile and were segmented live: the pass is due
		// again over them.
		m.mu.Unlock()
		return
	}
	if !sameSpans(m.topics, topics) || !sameIDs(m.topics, topics) {
		m.topics = topics
		m.lex = make([]termVector, len(topics))
		for i, t := range topics {
			m.lex[i] = indexTurns(turns[t.StartSeq : t.EndSeq+1])
		}
		m.dirty = true
	}
	if m.recordsEndPass() {
		m.dirty, m.saveEnd = true, true
	}
	m.mu.Unlock()
	m.settleTopics()
	log.Info("end-of-meeting pass", "last_seq", upTo, "live_topics", len(old), "topics", len(topics))
}

// recordsEndPass reports whether the topic store records end passes.
func (m *Manager) recordsEndPass() bool {
	_, ok := m.eng.deps.Store.(EndPassStore)
	return ok
}

// checkCover checks that segs cover seqs 0..last in order, without gaps.
func checkCover(segs []Segment, last int) error {
	next := 0
	for _, s := range segs {
		if s.StartSeq != next || s.EndSeq < s.StartSeq {
			return fmt.Errorf("segment %d-%d, want one starting at %d", s.StartSeq, s.EndSeq, next)
		}
		next = s.EndSeq + 1
	}
	if next != last+1 {
		return fmt.Errorf("segments cover seqs up to %d, want %d", next-1, last)
	}
	return nil
}

// realign turns the end pass's segments into topics. A segment with the
// span of a live topic keeps that topic as it is (id, text, embedding);
// any other takes the id of the live topic it overlaps most that no other
// segment took, with a higher version, and the segment's text (or a
// summary when the segment has none), so a topic's id lives on through
// the pass where its turns do.
func (m *Manager) realign(old []Topic, segs []Segment, turns []Turn) []Topic {
	byspan := make(map[[2]int]int, len(old))
	for i, t := range old {
		byspan[[2]int{t.StartSeq, t.EndSeq}] = i
	}
	taken := make([]bool, len(old))
	kept := make([]int, len(segs))
	for j, s := range segs {
		kept[j] = -1
		if i, ok := byspan[[2]int{s.StartSeq, s.EndSeq}]; ok {
			kept[j], taken[i] = i, true
		}
	}
	out := make([]Topic, len(segs))
	for j, s := range segs {
		if i := kept[j]; i >= 0 {
			out[j] = old[i]
			out[j].Seq = j
			continue
		}
		span := turns[s.StartSeq : s.EndSeq+1]
		startMS, endMS := timeSpan(span)
		t := Topic{ID: "", Title: s.Title, Summary: clip(s.Summary, 120), Keywords: s.Keywords,
			StartSeq: s.StartSeq, EndSeq: s.EndSeq, StartMS: startMS, EndMS: endMS, Seq: j, Version: 1}
		best, bestOverlap := -1, 0
		for i, o := range old {
			if ov := min(o.EndSeq, s.EndSeq) - max(o.StartSeq, s.StartSeq) + 1; !taken[i] && ov > bestOverlap {
				best, bestOverlap = i, ov
			}
		}
		if best >= 0 {
			taken[best] = true
			t.ID, t.Version = old[best].ID, old[best].Version+1
		} else {
			t.ID = uuid.NewString()
		}
		if t.Summary == "" || t.Title == "" {
			sum := m.summarize(span, nil, fallbackSummary(span))
			t.Title, t.Summary, t.Keywords = sum.Title, clip(sum.Summary, 120), sum.Keywords
		}
		out[j] = t
	}
	return out
}

func sameSpans(a, b []Topic) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].StartSeq != b[i].StartSeq || a[i].EndSeq != b[i].EndSeq {
			return false
		}
	}
	return true
}

func sameIDs(a, b []Topic) bool {
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Version != b[i].Version {
			return false
		}
	}
	return true
}
