package transcript

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ErrBadReplay: a replay line is not a usable segment.
var ErrBadReplay = errors.New("bad replay line")

// replayLine is one line of a replay file. Lines without "final" are final.
type replayLine struct {
	SegmentID   string   `json:"segment_id"`
	SpeakerID   string   `json:"speaker_id"`
	SpeakerName string   `json:"speaker_name"`
	Text        string   `json:"text"`
	StartMS     int64    `json:"start_ms"`
	EndMS       int64    `json:"end_ms"`
	Confidence  *float32 `json:"confidence"`
	Final       *bool    `json:"final"`
}

// ReadReplay parses a JSONL transcript: one object per line with
// segment_id (default "replay-<line>"), speaker_id or speaker_name, text,
// start_ms, end_ms, and optional confidence and final. Blank lines are
// skipped; a malformed line is an error naming it.
func ReadReplay(r io.Reader) ([]Segment, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var out []Segment
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var l replayLine
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("line %d: %w: %v", n, ErrBadReplay, err)
		}
		if strings.TrimSpace(l.Text) == "" || (l.SpeakerID == "" && l.SpeakerName == "") {
			return nil, fmt.Errorf("line %d: %w: text and a speaker are required", n, ErrBadReplay)
		}
		if l.StartMS < 0 || l.EndMS < l.StartMS && l.EndMS != 0 {
			return nil, fmt.Errorf("line %d: %w: bad start_ms/end_ms", n, ErrBadReplay)
		}
		s := Segment{
			ID: l.SegmentID, SpeakerID: l.SpeakerID, SpeakerName: l.SpeakerName,
			Text: strings.TrimSpace(l.Text), StartMS: l.StartMS, EndMS: max(l.EndMS, l.StartMS),
			Final: l.Final == nil || *l.Final, Confidence: 1, Source: SourceReplay,
		}
		if s.ID == "" {
			s.ID = fmt.Sprintf("replay-%d", n)
		}
		if s.SpeakerID == "" {
			s.SpeakerID = s.SpeakerName
		}
		if l.Confidence != nil {
			s.Confidence = *l.Confidence
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read replay: %w", err)
	}
	return out, nil
}

// Replay sends segs to out, spaced by their start times divided by rate
// (rate 0 sends them all at once), until ctx ends.
func Replay(ctx context.Context, segs []Segment, rate float64, out chan<- Segment) error {
	start := time.Now()
	for _, s := range segs {
		if rate > 0 {
			due := start.Add(time.Duration(float64(s.StartMS)/rate) * time.Millisecond)
			if d := time.Until(due); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-ctx.Done():
					t.Stop()
					return ctx.Err()
				case <-t.C:
				}
			}
		}
		s.Received = time.Now()
		select {
		case out <- s:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
