package wake

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/wakeword"
)

// Config tunes a Detector.
type Config struct {
	// Phrases are the bot's names (see pkg/wakeword); its defaults when
	// empty.
	Phrases []string
	// MaxEdits bounds the vowel/jamo edits of a heard wake word.
	MaxEdits int
	// FollowUp is how long after a bare wake word the speaker's next
	// final segment counts as the question.
	FollowUp time.Duration
	// Cooldown is how long after a question a speaker's next question is
	// queued behind the answers in progress rather than answered at once;
	// the same question repeated within it is merged into the first.
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
	// Queued: asked within the speaker's cooldown; it is answered after
	// the answers in progress finish.
	Queued bool
	// Repeat: the same question as the speaker's previous one, within
	// the cooldown; that answer covers it.
	Repeat bool
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
	matcher *wakeword.Matcher
	// armed maps a speaker who said a bare wake word to the deadline of
	// the follow-up question.
	armed map[string]time.Time
	// cooled maps a speaker to the end of their cooldown and their last
	// question.
	cooled map[string]cooldown
	// seen holds recent segment ids, oldest first in order.
	seen  map[string]struct{}
	order []string
}

type cooldown struct {
	until time.Time
	text  string
}

// NewDetector returns a detector for cfg.
func NewDetector(cfg Config) (*Detector, error) {
	m, err := wakeword.New(wakeword.Config{Names: cfg.Phrases, MaxEdits: cfg.MaxEdits})
	if err != nil {
		return nil, fmt.Errorf("wake detector: %w", err)
	}
	return &Detector{
		cfg:     cfg,
		matcher: m,
		armed:   map[string]time.Time{},
		cooled:  map[string]cooldown{},
		seen:    map[string]struct{}{},
	}, nil
}

// Matcher returns the detector's wake-word matcher.
func (d *Detector) Matcher() *wakeword.Matcher { return d.matcher }

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
		if utf8.RuneCountInString(m.Rest) >= minQuestionRunes {
			delete(d.armed, speakerID)
			q.Text = m.Rest
			return d.ask(q), true
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
	q.Text = strings.TrimSpace(text)
	return d.ask(q), true
}

// ask marks a question asked within its speaker's cooldown, and starts the
// speaker's cooldown.
func (d *Detector) ask(q Question) Question {
	if c, cooling := d.cooled[q.SpeakerID]; cooling && q.Heard.Before(c.until) {
		q.Queued = true
		q.Repeat = sameQuestion(c.text, q.Text)
	}
	d.cooled[q.SpeakerID] = cooldown{until: q.Heard.Add(d.cfg.Cooldown), text: q.Text}
	return q
}

// sameQuestion compares two questions by their letters and digits, case
// folded: a recogniser's repeat differs at most in punctuation.
func sameQuestion(a, b string) bool {
	key := func(s string) string {
		var sb strings.Builder
		for _, r := range s {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				sb.WriteRune(unicode.ToLower(r))
			}
		}
		return sb.String()
	}
	return key(a) == key(b)
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
