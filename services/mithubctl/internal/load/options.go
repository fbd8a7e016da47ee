package load

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Options shape a load run. Zero values take the defaults noted per field.
type Options struct {
	// Meetings run concurrently (default 10).
	Meetings int
	// Interval is the time between two utterances of one meeting
	// (default 2s).
	Interval time.Duration
	// Duration is how long utterances are sent (default 1m).
	Duration time.Duration
	// Warmup is the time after the start whose RSS growth does not count
	// (default 0).
	Warmup time.Duration
	// AskEvery is the time between two questions of one meeting; 0 asks
	// nothing.
	AskEvery time.Duration
	// PREvery is the time between two generate-pr calls of one meeting
	// while it runs; 0 asks for none during the run.
	PREvery time.Duration
	// PRAtEnd ends every meeting after the run and asks for its PR; with
	// MeetingLength, also each meeting that ends during the run.
	PRAtEnd bool
	// MeetingLength, when positive, ends a meeting after this many
	// utterances (and, with PRAtEnd, asks for its PR) and starts a new
	// one in its place, so that a long run
	// keeps Meetings meetings going without any of them growing for ever
	// (0: one meeting per slot for the whole run). The slots' first
	// meetings are shorter, from 1/Meetings of the length to all of it,
	// so that meetings end and start evenly over the run rather than all
	// at once.
	MeetingLength int
	// KoreanEvery makes every n-th utterance and question Korean
	// (default 5; negative: none).
	KoreanEvery int
	// RSSEvery is the RSS sampling interval (default 30s).
	RSSEvery time.Duration
	// Procs are the processes whose RSS is sampled.
	Procs []Proc
	// RequestTimeout bounds one request (default 30s; asks get twice as
	// long).
	RequestTimeout time.Duration
	// SettleTimeout bounds delivering what is still unacknowledged after
	// the run, ending meetings and waiting for PRs (default 5m).
	SettleTimeout time.Duration
	// Label prefixes the meeting titles (default "load").
	Label string
	// DataDir is the QMSum directory; its val split supplies the text.
	// MeetingFile, when set, supplies it instead: one meeting, a QMSum
	// .json or a .jsonl utterance file (questions from its
	// NAME.annotations.json, examples/meetings/README.md). One of the two
	// is required.
	DataDir     string
	MeetingFile string
	// MarksFile, when set, is read at the end for the fault window
	// ("fault_start <unix ms>", "fault_end <unix ms>").
	MarksFile string
	// StatusFile, when set, is rewritten every second with the run's phase
	// and counts as key=value lines.
	StatusFile string
}

// Defaults of Options.
const (
	DefaultMeetings       = 10
	DefaultInterval       = 2 * time.Second
	DefaultDuration       = time.Minute
	DefaultKoreanEvery    = 5
	DefaultRSSEvery       = 30 * time.Second
	DefaultRequestTimeout = 30 * time.Second
	DefaultSettleTimeout  = 5 * time.Minute
)

func (o Options) withDefaults() Options {
	if o.Meetings == 0 {
		o.Meetings = DefaultMeetings
	}
	if o.Interval == 0 {
		o.Interval = DefaultInterval
	}
	if o.Duration == 0 {
		o.Duration = DefaultDuration
	}
	if o.KoreanEvery == 0 {
		o.KoreanEvery = DefaultKoreanEvery
	}
	if o.RSSEvery == 0 {
		o.RSSEvery = DefaultRSSEvery
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.SettleTimeout == 0 {
		o.SettleTimeout = DefaultSettleTimeout
	}
	if o.Label == "" {
		o.Label = "load"
	}
	return o
}

// lengthOf is the number of utterances of a slot's gen-th meeting.
func (o Options) lengthOf(slot, gen int) int {
	if gen > 0 || o.Meetings <= 1 {
		return o.MeetingLength
	}
	return max(1, o.MeetingLength*(slot+1)/o.Meetings)
}

// Validate reports the first option out of range.
func (o Options) Validate() error {
	switch {
	case o.Meetings < 1 || o.Meetings > 10000:
		return fmt.Errorf("meetings: %d, want 1 to 10000", o.Meetings)
	case o.Interval < time.Millisecond:
		return fmt.Errorf("rate: interval %s is under 1ms", o.Interval)
	case o.Duration <= 0:
		return errors.New("duration must be positive")
	case o.Warmup < 0 || o.Warmup >= o.Duration:
		return fmt.Errorf("warm-up %s must be at least 0 and shorter than the duration %s", o.Warmup, o.Duration)
	case o.MeetingLength < 0:
		return errors.New("meeting-length must not be negative")
	case o.AskEvery < 0, o.PREvery < 0:
		return errors.New("ask-every and pr-every must not be negative")
	case o.RSSEvery < 100*time.Millisecond:
		return fmt.Errorf("rss-every %s is under 100ms", o.RSSEvery)
	case o.DataDir == "" && o.MeetingFile == "":
		return errors.New("no QMSum data directory and no meeting file")
	}
	return nil
}

// ParseRate reads a per-meeting utterance rate: a number of utterances per
// second ("0.5") or the interval between two ("2s", "500ms"). It returns
// the interval.
func ParseRate(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return 0, fmt.Errorf("rate %q: interval must be positive", s)
		}
		return d, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f > 1000 {
		return 0, fmt.Errorf("rate %q: want utterances per second (0 < n <= 1000) or an interval such as 2s", s)
	}
	return time.Duration(float64(time.Second) / f), nil
}
