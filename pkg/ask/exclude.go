package ask

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/wakeword"
)

// DefaultFollowUpMS is how long after a bare wake word ("hey mithub.")
// the speaker's next turn is taken for the question to the bot.
const DefaultFollowUpMS = 8000

// Exclusion keeps turns out of a context: what was said to the bot is
// never evidence for what the bot answers.
type Exclusion struct {
	// Segments are excluded by segment id: the question's own turn.
	Segments map[string]bool
	// Wake, when set, excludes every turn addressed to the bot and, after
	// a bare wake word, the same speaker's next turn within FollowUpMS
	// (DefaultFollowUpMS when 0).
	Wake       *wakeword.Matcher
	FollowUpMS int64
}

// excluded returns the seqs of the input's turns that e keeps out.
func (e *Exclusion) excluded(in *Input) seqSet {
	var out seqSet
	if e == nil || (len(e.Segments) == 0 && e.Wake == nil) {
		return out
	}
	var all []*meetingctx.Turn
	add := func(ts []meetingctx.Turn) {
		for i := range ts {
			all = append(all, &ts[i])
		}
	}
	add(in.Recent)
	add(in.Pending)
	add(in.Since)
	for i := range in.Searched {
		in.Searched[i].each(func(en entry) bool { all = append(all, en.turn); return true })
	}
	slices.SortFunc(all, func(a, b *meetingctx.Turn) int { return a.Seq - b.Seq })
	all = slices.CompactFunc(all, func(a, b *meetingctx.Turn) bool { return a.Seq == b.Seq })
	follow := e.FollowUpMS
	if follow <= 0 {
		follow = DefaultFollowUpMS
	}
	armed := map[string]int64{} // speaker → deadline of the follow-up
	for _, t := range all {
		if e.Segments[t.SegmentID] && t.SegmentID != "" {
			out.add(t.Seq)
		}
		if e.Wake == nil {
			continue
		}
		if m, ok := e.Wake.Find(t.Text); ok {
			out.add(t.Seq)
			if hasWords(m.Rest) {
				delete(armed, t.SpeakerID)
			} else {
				armed[t.SpeakerID] = t.EndMS + follow
			}
			continue
		}
		if until, ok := armed[t.SpeakerID]; ok {
			if t.StartMS <= until && hasWords(t.Text) {
				out.add(t.Seq)
				delete(armed, t.SpeakerID)
			} else if t.StartMS > until {
				delete(armed, t.SpeakerID)
			}
		}
	}
	return out
}

// hasWords: at least two letters or digits ("음...", "?" are filler).
func hasWords(s string) bool {
	n := 0
	for _, r := range s {
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if n++; n >= 2 {
				return true
			}
		}
	}
	return false
}
