package wake

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Config tunes a Detector.
type Config struct {
	// Phrases are the wake words.
	Phrases []string
	// MaxEdits bounds the edit distance of a heard wake word.
	MaxEdits int
	// FollowUp is how long after a bare wake word the speaker's next
	// final segment counts as the question.
	FollowUp time.Duration
	// Cooldown is how long a speaker's wake words are ignored after one
	// triggered a question.
	Cooldown time.Duration
}

// Question is a question addressed to the bot.
type Question struct {
	// SegmentID is the segment that carries the question text.
	SegmentID   string
	SpeakerID   string
	SpeakerName string
	Text        string
	// Heard is when the question's segment arrived.
	Heard time.Time
}

// minQuestionRunes: shorter remainders ("hey mithub, uh") wait for the
// next segment.
const minQuestionRunes = 2

// maxRemembered bounds the segment ids kept for dedupe.
const maxRemembered = 4096

// Detector turns final segments into questions. It is owned by one room
// session and not safe for concurrent use.
type Detector struct {
	cfg     Config
	matcher *Matcher
	// armed maps a speaker who said a bare wake word to the deadline of
	// the follow-up question.
	armed map[string]time.Time
	// cooled maps a speaker to the end of their cooldown.
	cooled map[string]time.Time
	// seen holds recent segment ids, oldest first in order.
	seen  map[string]struct{}
	order []string
}

// NewDetector returns a detector for cfg.
func NewDetector(cfg Config) *Detector {
	return &Detector{
		cfg:     cfg,
		matcher: NewMatcher(cfg.Phrases, cfg.MaxEdits),
		armed:   map[string]time.Time{},
		cooled:  map[string]time.Time{},
		seen:    map[string]struct{}{},
	}
}

// Observe looks at one final segment heard at now and returns the
// question it completes, if any. A segment id seen before never triggers
// again (segments are re-sent after reconnects).
func (d *Detector) Observe(segmentID, speakerID, speakerName, text string, now time.Time) (Question, bool) {
	if _, dup := d.seen[segmentID]; dup {
		return Question{}, false
	}
	d.remember(segmentID)
	q := Question{SegmentID: segmentID, SpeakerID: speakerID, SpeakerName: speakerName, Heard: now}

	if m, ok := d.matcher.Find(text); ok {
		if until, cooling := d.cooled[speakerID]; cooling && now.Before(until) {
			return Question{}, false
		}
		if utf8.RuneCountInString(m.Rest) >= minQuestionRunes {
			delete(d.armed, speakerID)
			d.cooled[speakerID] = now.Add(d.cfg.Cooldown)
			q.Text = m.Rest
			return q, true
		}
		d.armed[speakerID] = now.Add(d.cfg.FollowUp)
		return Question{}, false
	}
	deadline, armed := d.armed[speakerID]
	if !armed {
		return Question{}, false
	}
	if now.After(deadline) {
		delete(d.armed, speakerID)
		return Question{}, false
	}
	// Filler ("음...", "?") is not the question: keep waiting for it.
	if !hasQuestion(text) {
		return Question{}, false
	}
	delete(d.armed, speakerID)
	d.cooled[speakerID] = now.Add(d.cfg.Cooldown)
	q.Text = strings.TrimSpace(text)
	return q, true
}

// hasQuestion reports whether text holds at least minQuestionRunes
// letters or digits: "음...", "?" and the like are filler.
func hasQuestion(text string) bool {
	n := 0
	for _, r := range text {
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if n++; n >= minQuestionRunes {
				return true
			}
		}
	}
	return false
}

func (d *Detector) remember(id string) {
	d.seen[id] = struct{}{}
	d.order = append(d.order, id)
	if len(d.order) > maxRemembered {
		delete(d.seen, d.order[0])
		d.order = d.order[1:]
	}
}
