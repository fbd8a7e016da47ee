package qmsum

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/apiclient"
)

// maxLineBytes bounds one JSONL line.
const maxLineBytes = 1 << 20

// jsonlUtterance is one JSONL line: the API's utterance fields, with
// segment_id, speaker_id and confidence optional.
type jsonlUtterance struct {
	SegmentID   string   `json:"segment_id"`
	SpeakerID   string   `json:"speaker_id"`
	SpeakerName string   `json:"speaker_name"`
	Text        string   `json:"text"`
	StartMS     int64    `json:"start_ms"`
	EndMS       int64    `json:"end_ms"`
	Confidence  *float64 `json:"confidence"`
}

// LoadJSONL reads a JSONL utterance file; see ReadJSONL.
func LoadJSONL(path, idPrefix string) ([]apiclient.Utterance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	defer f.Close()
	utts, err := ReadJSONL(f, idPrefix)
	if err != nil {
		return nil, fmt.Errorf("jsonl %s: %w", path, err)
	}
	return utts, nil
}

// ReadJSONL reads one utterance object per line, with the API's field names.
// speaker_name and text are required; a missing segment_id becomes
// SegmentID(idPrefix, line number), a missing speaker_id Slug(speaker_name)
// and a missing confidence 1. Blank lines are skipped, unknown fields are
// errors, and errors name their 1-based line number.
func ReadJSONL(r io.Reader, idPrefix string) ([]apiclient.Utterance, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	var utts []apiclient.Utterance
	seen := make(map[string]int) // segment id → line
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		u, err := parseLine(b, idPrefix, line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if first, dup := seen[u.SegmentID]; dup {
			return nil, fmt.Errorf("line %d: segment_id %q already used on line %d", line, u.SegmentID, first)
		}
		seen[u.SegmentID] = line
		utts = append(utts, u)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", line+1, maxLineBytes)
		}
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return utts, nil
}

// parseLine decodes and checks one line; a missing segment_id becomes
// SegmentID(idPrefix, line).
func parseLine(b []byte, idPrefix string, line int) (apiclient.Utterance, error) {
	u, err := ParseJSONLLine(b)
	if err != nil {
		return u, err
	}
	if u.SegmentID == "" {
		u.SegmentID = SegmentID(idPrefix, line)
	}
	return u, nil
}

// ParseJSONLLine decodes and checks one JSONL utterance line (the API's
// field names; see ReadJSONL): speaker_name and text are required, unknown
// fields are errors, a missing speaker_id is Slug(speaker_name), a
// missing confidence 1 and a missing segment_id stays empty.
func ParseJSONLLine(b []byte) (apiclient.Utterance, error) {
	if !utf8.Valid(b) {
		return apiclient.Utterance{}, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ju jsonlUtterance
	if err := dec.Decode(&ju); err != nil {
		return apiclient.Utterance{}, err
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		return apiclient.Utterance{}, errors.New("unexpected data after the JSON object")
	}
	u := apiclient.Utterance{
		SegmentID:   strings.TrimSpace(ju.SegmentID),
		SpeakerID:   strings.TrimSpace(ju.SpeakerID),
		SpeakerName: strings.TrimSpace(ju.SpeakerName),
		Text:        strings.TrimSpace(ju.Text),
		StartMS:     ju.StartMS,
		EndMS:       ju.EndMS,
		Confidence:  1,
	}
	switch {
	case u.SpeakerName == "":
		return u, errors.New("speaker_name is required")
	case u.Text == "":
		return u, errors.New("text is required")
	case u.StartMS < 0 || u.EndMS < u.StartMS:
		return u, fmt.Errorf("want 0 <= start_ms <= end_ms, got %d and %d", u.StartMS, u.EndMS)
	}
	if ju.Confidence != nil {
		if !(*ju.Confidence >= 0 && *ju.Confidence <= 1) {
			return u, fmt.Errorf("confidence %v outside [0, 1]", *ju.Confidence)
		}
		u.Confidence = *ju.Confidence
	}
	if u.SpeakerID == "" {
		u.SpeakerID = Slug(u.SpeakerName)
	}
	return u, nil
}
