package answer

import (
	"slices"
	"sync"
	"sync/atomic"
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
	var all []entry
	add := func(ts []meetingctx.Turn) {
		for i := range ts {
			all = append(all, entry{turn: &ts[i]})
		}
	}
	add(in.Recent)
	add(in.Pending)
	add(in.Since)
	for i := range in.Searched {
		in.Searched[i].each(func(en entry) bool { all = append(all, en); return true })
	}
	// Indexed entries first among equal seqs, so compaction keeps the one
	// with a cached wake result.
	slices.SortFunc(all, func(a, b entry) int {
		if a.turn.Seq != b.turn.Seq {
			return a.turn.Seq - b.turn.Seq
		}
		return b2i(a.doc == nil) - b2i(b.doc == nil)
	})
	all = slices.CompactFunc(all, func(a, b entry) bool { return a.turn.Seq == b.turn.Seq })
	follow := e.FollowUpMS
	if follow <= 0 {
		follow = DefaultFollowUpMS
	}
	armed := map[string]int64{} // speaker → deadline of the follow-up
	for _, en := range all {
		t := en.turn
		if e.Segments[t.SegmentID] && t.SegmentID != "" {
			out.add(t.Seq)
		}
		if e.Wake == nil {
			continue
		}
		if r := e.wake(en); r != wakeNone {
			out.add(t.Seq)
			if r == wakeQuestion {
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

// What a wake-word matcher finds in a turn.
const (
	wakeNone     uint32 = 1 // no wake word
	wakeQuestion uint32 = 2 // a wake word with words after it
	wakeBare     uint32 = 3 // a wake word alone
)

// wake runs e.Wake over the entry's turn. An indexed turn keeps the
// result for the same matcher, so the turns of cached topics are matched
// once, not on every ask.
func (e *Exclusion) wake(en entry) uint32 {
	id := e.Wake.ID()
	if en.doc != nil {
		if c := atomic.LoadUint32(&en.doc.wake); c>>2 == id {
			return c & 3
		}
	}
	key := wakeKey{id, en.turn.Text}
	r, ok := wakeMemo.get(key)
	if !ok {
		r = wakeNone
		if m, found := e.Wake.Find(en.turn.Text); found {
			r = wakeBare
			if hasWords(m.Rest) {
				r = wakeQuestion
			}
		}
		wakeMemo.put(key, r)
	}
	if en.doc != nil && id < 1<<30 {
		atomic.StoreUint32(&en.doc.wake, id<<2|r)
	}
	return r
}

// wakeMemo keeps what matchers found in recent texts that are not in an
// index (the recent and pending turns every ask reads again): texts up to
// wakeMemoText bytes, wakeMemoBytes of them in all; it starts over when
// full.
var wakeMemo = &wakeCache{m: map[wakeKey]uint32{}}

const (
	wakeMemoText  = 4 << 10
	wakeMemoBytes = 4 << 20
)

type wakeKey struct {
	matcher uint32
	text    string
}

type wakeCache struct {
	mu    sync.Mutex
	m     map[wakeKey]uint32
	bytes int
}

func (c *wakeCache) get(k wakeKey) (uint32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	return r, ok
}

func (c *wakeCache) put(k wakeKey, r uint32) {
	if len(k.text) > wakeMemoText {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(k.text) > wakeMemoBytes {
		clear(c.m)
		c.bytes = 0
	}
	if _, ok := c.m[k]; !ok {
		c.bytes += len(k.text)
	}
	c.m[k] = r
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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
