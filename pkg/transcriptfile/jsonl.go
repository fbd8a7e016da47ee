package transcriptfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/qmsum"
)

// jsonlReader reads the replay's JSONL: one utterance object per line
// (examples/meetings/README.md). speaker_name and text are required,
// unknown fields are errors, blank lines are skipped.
type jsonlReader struct {
	sc   *bufio.Scanner
	line int
	// seen maps a file's own segment ids to their line.
	seen map[string]int
}

func newJSONLReader(r io.Reader) *jsonlReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	return &jsonlReader{sc: sc, seen: make(map[string]int)}
}

func (j *jsonlReader) Next() (Segment, error) {
	for j.sc.Scan() {
		j.line++
		b := bytes.TrimSpace(j.sc.Bytes())
		if j.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if len(b) == 0 {
			continue
		}
		s, err := parseJSONLLine(b)
		if err != nil {
			return Segment{}, &LineError{Line: j.line, Err: err}
		}
		if s.ID != "" {
			if first, dup := j.seen[s.ID]; dup {
				return Segment{}, lineErrorf(j.line, "segment_id %q already used on line %d", truncate(s.ID, 64), first)
			}
			j.seen[s.ID] = j.line
		}
		s.Line = j.line
		return s, nil
	}
	if err := j.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("%w: longer than %d bytes", errTooLong, maxLineBytes)
		}
		return Segment{}, &LineError{Line: j.line + 1, Err: err}
	}
	return Segment{}, io.EOF
}

// parseJSONLLine reads one line as the replay does (qmsum.ParseJSONLLine).
func parseJSONLLine(b []byte) (Segment, error) {
	u, err := qmsum.ParseJSONLLine(b)
	return Segment{
		ID: u.SegmentID, SpeakerID: u.SpeakerID, SpeakerName: u.SpeakerName, Text: u.Text,
		StartMS: u.StartMS, EndMS: u.EndMS, Confidence: u.Confidence,
	}, err
}

func isJSONObject(s string) bool {
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return false
	}
	return json.Valid([]byte(s))
}

// qmsumReader streams a QMSum meeting's meeting_transcripts array, one
// turn at a time, skipping the other keys. Times are synthesized as
// qmsum.Utterances does (the files have none); turns without text are
// skipped.
type qmsumReader struct {
	cr    *countingReader
	dec   *json.Decoder
	state int // 0 before the array, 1 inside it, 2 after it
	at    int64
}

func newQMSumReader(r io.Reader) *qmsumReader {
	cr := &countingReader{r: r}
	return &qmsumReader{cr: cr, dec: json.NewDecoder(cr)}
}

// countingReader counts the newlines the decoder has consumed, so errors
// can name a line (the decoder's buffer runs ahead; InputOffset tells
// how far the decoder itself is).
type countingReader struct {
	r    io.Reader
	read []int64 // offsets of the newlines not yet forgotten
	// forgotten counts the newlines before read[0].
	forgotten int
	off       int64
}

// forget drops the newlines before offset off, which no error can name
// any more, so a long file keeps only the decoder's look-ahead.
func (c *countingReader) forget(off int64) {
	i := 0
	for i < len(c.read) && c.read[i] < off {
		i++
	}
	if i > 0 {
		c.forgotten += i
		c.read = append(c.read[:0], c.read[i:]...)
	}
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			c.read = append(c.read, c.off+int64(i))
		}
	}
	c.off += int64(n)
	return n, err
}

// lineAt is the 1-based line of byte offset off.
func (c *countingReader) lineAt(off int64) int {
	lo, hi := 0, len(c.read)
	for lo < hi {
		m := (lo + hi) / 2
		if c.read[m] < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return c.forgotten + lo + 1
}

func (q *qmsumReader) errAt(err error) error {
	var se *json.SyntaxError
	off := q.dec.InputOffset()
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("unexpected end of file")
		off = q.cr.off
	}
	return &LineError{Line: q.cr.lineAt(off), Err: err}
}

type qmsumTurn struct {
	Speaker string `json:"speaker"`
	Content string `json:"content"`
}

func (q *qmsumReader) Next() (Segment, error) {
	if q.state == 0 {
		if err := q.findTranscripts(); err != nil {
			return Segment{}, err
		}
		q.state = 1
	}
	for q.state == 1 {
		q.cr.forget(q.dec.InputOffset())
		if !q.dec.More() {
			if _, err := q.dec.Token(); err != nil { // ]
				return Segment{}, q.errAt(err)
			}
			q.state = 2
			break
		}
		var t qmsumTurn
		if err := q.dec.Decode(&t); err != nil {
			return Segment{}, q.errAt(fmt.Errorf("meeting_transcripts: %w", err))
		}
		// The line where the turn's object ends.
		line := q.cr.lineAt(q.dec.InputOffset() - 1)
		text := strings.TrimSpace(t.Content)
		if text == "" {
			continue
		}
		if !utf8.ValidString(text) || !utf8.ValidString(t.Speaker) {
			return Segment{}, q.errAt(errors.New("not valid UTF-8"))
		}
		speaker := strings.TrimSpace(t.Speaker)
		if speaker == "" {
			speaker = "Unknown"
		}
		start := q.at
		end := start + qmsum.SpeakingMS(text)
		q.at = end + qmsum.GapMS
		return Segment{SpeakerName: speaker, SpeakerID: qmsum.Slug(speaker), Text: text, StartMS: start, EndMS: end, Confidence: 1, Line: line}, nil
	}
	return Segment{}, io.EOF
}

// findTranscripts reads up to the first element of meeting_transcripts,
// skipping every other key's value.
func (q *qmsumReader) findTranscripts() error {
	tok, err := q.dec.Token()
	if err != nil {
		return q.errAt(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return q.errAt(errors.New("a QMSum file is a JSON object"))
	}
	for q.dec.More() {
		tok, err := q.dec.Token()
		if err != nil {
			return q.errAt(err)
		}
		key, _ := tok.(string)
		if key != "meeting_transcripts" {
			var skip json.RawMessage // one value of another key; bounded by the file
			if err := q.dec.Decode(&skip); err != nil {
				return q.errAt(err)
			}
			continue
		}
		tok, err = q.dec.Token()
		if err != nil {
			return q.errAt(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return q.errAt(errors.New("meeting_transcripts must be an array"))
		}
		return nil
	}
	return q.errAt(errors.New("no meeting_transcripts array"))
}
