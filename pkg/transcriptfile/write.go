package transcriptfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mithub/mithub/pkg/apiclient"
)

// Meta describes the meeting a written transcript belongs to.
type Meta struct {
	MeetingID string
	Title     string
	// StartedAt, when set, is written by the Markdown and JSON writers.
	StartedAt time.Time
}

// Writer writes segments one at a time; Close finishes the file (it does
// not close the underlying io.Writer).
type Writer interface {
	Write(Segment) error
	Close() error
}

// ContentType is the media type of a written format.
func ContentType(f Format) string {
	switch f {
	case VTT:
		return "text/vtt; charset=utf-8"
	case SRT:
		return "application/x-subrip; charset=utf-8"
	case Markdown:
		return "text/markdown; charset=utf-8"
	case JSONL:
		return "application/x-ndjson"
	}
	return "application/json"
}

// NewWriter returns a writer of format f to w.
func NewWriter(w io.Writer, f Format, m Meta) (Writer, error) {
	bw := bufio.NewWriterSize(w, 32<<10)
	switch f {
	case VTT:
		return &vttWriter{w: bw}, nil
	case SRT:
		return &srtWriter{w: bw}, nil
	case Markdown:
		return &mdWriter{w: bw, meta: m}, nil
	case JSON:
		return &jsonWriter{w: bw, meta: m}, nil
	case JSONL:
		return &jsonlWriter{w: bw}, nil
	}
	return nil, fmt.Errorf("cannot write transcript format %q (want vtt, srt, md, json or jsonl)", f)
}

// oneLine folds line breaks, which would end a cue, into spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// timestamp formats ms as hh:mm:ss.ttt (sep "." for WebVTT, "," for SRT).
func timestamp(ms int64, sep string) string {
	if ms < 0 {
		ms = 0
	}
	h := ms / 3_600_000
	m := ms / 60_000 % 60
	s := ms / 1000 % 60
	return fmt.Sprintf("%02d:%02d:%02d%s%03d", h, m, s, sep, ms%1000)
}

var vttEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

type vttWriter struct {
	w       *bufio.Writer
	started bool
}

func (v *vttWriter) header() {
	if !v.started {
		v.started = true
		v.w.WriteString("WEBVTT\n\n")
	}
}

func (v *vttWriter) Write(s Segment) error {
	v.header()
	if s.ID != "" {
		// A cue id must not contain "-->" or a line break.
		v.w.WriteString(oneLine(strings.ReplaceAll(s.ID, "-->", "- ->")) + "\n")
	}
	fmt.Fprintf(v.w, "%s --> %s\n", timestamp(s.StartMS, "."), timestamp(max(s.EndMS, s.StartMS), "."))
	_, err := fmt.Fprintf(v.w, "<v %s>%s\n\n", vttEscaper.Replace(oneLine(speakerOf(s))), vttEscaper.Replace(oneLine(s.Text)))
	return err
}

func (v *vttWriter) Close() error {
	v.header()
	return v.w.Flush()
}

type srtWriter struct {
	w *bufio.Writer
	n int
}

func (w *srtWriter) Write(s Segment) error {
	w.n++
	_, err := fmt.Fprintf(w.w, "%d\n%s --> %s\n%s: %s\n\n", w.n, timestamp(s.StartMS, ","),
		timestamp(max(s.EndMS, s.StartMS), ","), oneLine(speakerOf(s)), oneLine(s.Text))
	return err
}

func (w *srtWriter) Close() error { return w.w.Flush() }

type mdWriter struct {
	w       *bufio.Writer
	meta    Meta
	started bool
}

func (m *mdWriter) header() {
	if m.started {
		return
	}
	m.started = true
	title := oneLine(m.meta.Title)
	if title == "" {
		title = "Transcript"
	}
	fmt.Fprintf(m.w, "# %s\n\n", title)
	if !m.meta.StartedAt.IsZero() {
		fmt.Fprintf(m.w, "Started %s", m.meta.StartedAt.UTC().Format(time.RFC3339))
		if m.meta.MeetingID != "" {
			fmt.Fprintf(m.w, " · meeting `%s`", m.meta.MeetingID)
		}
		m.w.WriteString("\n\n")
	}
}

func (m *mdWriter) Write(s Segment) error {
	m.header()
	_, err := fmt.Fprintf(m.w, "**[%s] %s:** %s\n\n", timestamp(s.StartMS, ".")[:8], oneLine(speakerOf(s)), oneLine(s.Text))
	return err
}

func (m *mdWriter) Close() error {
	m.header()
	return m.w.Flush()
}

// toJSONSegment is a segment as the JSON and JSONL writers give it: the
// replay's utterance fields.
func toJSONSegment(s Segment) apiclient.Utterance {
	c := s.Confidence
	if c == 0 {
		c = 1
	}
	return apiclient.Utterance{SegmentID: s.ID, SpeakerID: s.SpeakerID, SpeakerName: speakerOf(s), Text: s.Text,
		StartMS: s.StartMS, EndMS: max(s.EndMS, s.StartMS), Confidence: c}
}

type jsonWriter struct {
	w       *bufio.Writer
	meta    Meta
	started bool
	n       int
}

func (j *jsonWriter) header() error {
	if j.started {
		return nil
	}
	j.started = true
	head := struct {
		MeetingID string     `json:"meeting_id,omitempty"`
		Title     string     `json:"title"`
		StartedAt *time.Time `json:"started_at,omitempty"`
	}{MeetingID: j.meta.MeetingID, Title: j.meta.Title}
	if !j.meta.StartedAt.IsZero() {
		t := j.meta.StartedAt.UTC()
		head.StartedAt = &t
	}
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	// Open the object again to append the segments array.
	j.w.Write(b[:len(b)-1])
	_, err = j.w.WriteString(`,"segments":[`)
	return err
}

func (j *jsonWriter) Write(s Segment) error {
	if err := j.header(); err != nil {
		return err
	}
	b, err := json.Marshal(toJSONSegment(s))
	if err != nil {
		return err
	}
	if j.n > 0 {
		j.w.WriteByte(',')
	}
	j.n++
	j.w.WriteString("\n")
	_, err = j.w.Write(b)
	return err
}

func (j *jsonWriter) Close() error {
	if err := j.header(); err != nil {
		return err
	}
	j.w.WriteString("\n]}\n")
	return j.w.Flush()
}

type jsonlWriter struct{ w *bufio.Writer }

func (j *jsonlWriter) Write(s Segment) error {
	b, err := json.Marshal(toJSONSegment(s))
	if err != nil {
		return err
	}
	j.w.Write(b)
	return j.w.WriteByte('\n')
}

func (j *jsonlWriter) Close() error { return j.w.Flush() }

func speakerOf(s Segment) string {
	if strings.TrimSpace(s.SpeakerName) == "" {
		return "Unknown"
	}
	return s.SpeakerName
}
