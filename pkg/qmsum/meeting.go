package qmsum

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Meeting is one QMSum meeting file.
type Meeting struct {
	// Name is the file's base name without its extension ("Bed002").
	Name            string
	Turns           []Turn
	Topics          []Topic
	SpecificQueries []SpecificQuery
	GeneralQueries  []GeneralQuery
}

// Turn is one speaker turn; its index in Meeting.Turns is its turn number.
type Turn struct {
	Speaker string
	Content string
}

// Topic is an annotated topic and the turns that discuss it.
type Topic struct {
	Topic string
	Spans []Span
}

// SpecificQuery is a question about part of the meeting, with the turns
// that answer it.
type SpecificQuery struct {
	Query  string
	Answer string
	Spans  []Span
}

// GeneralQuery is a question about the whole meeting.
type GeneralQuery struct {
	Query  string
	Answer string
}

// Span is an inclusive range of turn indices.
type Span struct {
	Start, End int
}

// Len is the number of turns in the span.
func (s Span) Len() int { return s.End - s.Start + 1 }

// Contains reports whether turn index i is inside the span.
func (s Span) Contains(i int) bool { return i >= s.Start && i <= s.End }

// rawMeeting is the file format.
type rawMeeting struct {
	Transcripts []struct {
		Speaker string `json:"speaker"`
		Content string `json:"content"`
	} `json:"meeting_transcripts"`
	Topics []struct {
		Topic string    `json:"topic"`
		Spans []rawSpan `json:"relevant_text_span"`
	} `json:"topic_list"`
	Specific []struct {
		Query  string    `json:"query"`
		Answer string    `json:"answer"`
		Spans  []rawSpan `json:"relevant_text_span"`
	} `json:"specific_query_list"`
	General []struct {
		Query  string `json:"query"`
		Answer string `json:"answer"`
	} `json:"general_query_list"`
}

// rawSpan is ["start","end"]; numbers are accepted too.
type rawSpan []json.RawMessage

// Load reads a QMSum meeting file.
func Load(path string) (*Meeting, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("qmsum: %w", err)
	}
	defer f.Close()
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	m, err := Parse(f, name)
	if err != nil {
		return nil, fmt.Errorf("qmsum %s: %w", path, err)
	}
	return m, nil
}

// Parse reads a QMSum meeting from r; name becomes Meeting.Name.
func Parse(r io.Reader, name string) (*Meeting, error) {
	var raw rawMeeting
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if len(raw.Transcripts) == 0 {
		return nil, fmt.Errorf("no meeting_transcripts")
	}
	m := &Meeting{Name: name, Turns: make([]Turn, len(raw.Transcripts))}
	for i, t := range raw.Transcripts {
		m.Turns[i] = Turn{Speaker: t.Speaker, Content: t.Content}
	}
	n := len(m.Turns)
	for i, t := range raw.Topics {
		spans, err := parseSpans(t.Spans, n)
		if err != nil {
			return nil, fmt.Errorf("topic_list[%d]: %w", i, err)
		}
		m.Topics = append(m.Topics, Topic{Topic: t.Topic, Spans: spans})
	}
	for i, q := range raw.Specific {
		spans, err := parseSpans(q.Spans, n)
		if err != nil {
			return nil, fmt.Errorf("specific_query_list[%d]: %w", i, err)
		}
		m.SpecificQueries = append(m.SpecificQueries, SpecificQuery{Query: q.Query, Answer: q.Answer, Spans: spans})
	}
	for _, q := range raw.General {
		m.GeneralQueries = append(m.GeneralQueries, GeneralQuery(q))
	}
	return m, nil
}

// parseSpans converts raw spans and checks them against a meeting of n turns.
func parseSpans(raw []rawSpan, n int) ([]Span, error) {
	spans := make([]Span, 0, len(raw))
	for i, rs := range raw {
		s, err := parseSpan(rs, n)
		if err != nil {
			return nil, fmt.Errorf("relevant_text_span[%d]: %w", i, err)
		}
		spans = append(spans, s)
	}
	return spans, nil
}

// parseSpan converts one ["start","end"] pair.
func parseSpan(rs rawSpan, n int) (Span, error) {
	if len(rs) != 2 {
		return Span{}, fmt.Errorf("want [start, end], got %d elements", len(rs))
	}
	start, err := spanIndex(rs[0])
	if err != nil {
		return Span{}, fmt.Errorf("start: %w", err)
	}
	end, err := spanIndex(rs[1])
	if err != nil {
		return Span{}, fmt.Errorf("end: %w", err)
	}
	switch {
	case start > end:
		return Span{}, fmt.Errorf("start %d after end %d", start, end)
	case end >= n:
		return Span{}, fmt.Errorf("end %d beyond the last turn %d", end, n-1)
	}
	return Span{Start: start, End: end}, nil
}

// spanIndex parses a turn index given as a JSON string or number.
func spanIndex(raw json.RawMessage) (int, error) {
	text := string(raw)
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		text = s
	}
	i, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil {
		return 0, fmt.Errorf("turn index %s is not an integer", raw)
	}
	if i < 0 {
		return 0, fmt.Errorf("turn index %d is negative", i)
	}
	return i, nil
}

// MeetingFiles returns the meeting files (*.json) of a QMSum split
// directory in name order, or an error when it holds none.
func MeetingFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no QMSum meetings (*.json) in %s", dir)
	}
	sort.Strings(files)
	return files, nil
}
