package transcriptfile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mithub/mithub/pkg/qmsum"
)

// Segment is one final utterance of a transcript.
type Segment struct {
	// ID is the segment's id: the file's own (a JSONL segment_id), or
	// empty until IDs derives one.
	ID          string  `json:"segment_id"`
	SpeakerID   string  `json:"speaker_id"`
	SpeakerName string  `json:"speaker_name"`
	Text        string  `json:"text"`
	StartMS     int64   `json:"start_ms"`
	EndMS       int64   `json:"end_ms"`
	Confidence  float64 `json:"confidence"`
	// Line is the 1-based line of the file where the segment starts (its
	// timing line, its JSONL line, its QMSum turn), for errors about it.
	Line int `json:"-"`
}

// Format names a transcript file format.
type Format string

// The formats. Readers exist for VTT, SRT, JSONL and QMSum; writers for
// VTT, SRT, Markdown, JSON and JSONL.
const (
	VTT      Format = "vtt"
	SRT      Format = "srt"
	JSONL    Format = "jsonl"
	QMSum    Format = "qmsum"
	Markdown Format = "md"
	JSON     Format = "json"
)

// ReadFormats and WriteFormats list what Open and NewWriter accept.
var (
	ReadFormats  = []Format{VTT, SRT, JSONL, QMSum}
	WriteFormats = []Format{VTT, SRT, Markdown, JSON, JSONL}
)

// ParseFormat reads a format name, case-insensitively; "webvtt" is VTT,
// "markdown" is Markdown.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case VTT, SRT, JSONL, QMSum, Markdown, JSON:
		return f, nil
	case "webvtt":
		return VTT, nil
	case "markdown":
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown transcript format %q (want vtt, srt, jsonl, qmsum, md or json)", truncate(s, 32))
}

// FormatOfName guesses a readable format from a file name's extension:
// .vtt, .srt, .jsonl and .json (QMSum). It returns "" when it cannot.
func FormatOfName(name string) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".vtt":
		return VTT
	case ".srt":
		return SRT
	case ".jsonl", ".ndjson":
		return JSONL
	case ".json":
		return QMSum
	}
	return ""
}

// Sniff guesses a readable format from the start of a file: "WEBVTT" is
// VTT, a first line holding a whole JSON object is JSONL, another "{" is
// QMSum, a number followed by a timing line is SRT. It returns "" when it
// cannot tell.
func Sniff(head []byte) Format {
	s := strings.TrimPrefix(string(head), "\ufeff")
	s = strings.TrimLeft(s, " \t\r\n")
	switch {
	case strings.HasPrefix(s, "WEBVTT"):
		return VTT
	case strings.HasPrefix(s, "{"):
		line, _, complete := strings.Cut(s, "\n")
		if complete && isJSONObject(strings.TrimSpace(line)) {
			return JSONL
		}
		return QMSum
	}
	lines := strings.SplitN(s, "\n", 3)
	if len(lines) >= 2 && strings.Contains(lines[1], "-->") {
		return SRT
	}
	if len(lines) >= 1 && strings.Contains(lines[0], "-->") {
		return SRT
	}
	return ""
}

// LineError is a reader's error: what went wrong and the 1-based line.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

func lineErrorf(line int, format string, args ...any) error {
	return &LineError{Line: line, Err: fmt.Errorf(format, args...)}
}

// Reader reads segments one at a time.
type Reader interface {
	// Next returns the next segment, io.EOF after the last, or a
	// *LineError.
	Next() (Segment, error)
}

// Open returns a reader of format f over r.
func Open(r io.Reader, f Format) (Reader, error) {
	switch f {
	case VTT:
		return newCueReader(r, true), nil
	case SRT:
		return newCueReader(r, false), nil
	case JSONL:
		return newJSONLReader(r), nil
	case QMSum:
		return newQMSumReader(r), nil
	}
	return nil, fmt.Errorf("cannot read transcript format %q (want vtt, srt, jsonl or qmsum)", f)
}

// ReadAll reads every segment of r, with ids (see IDs). It is for small
// files and tests; imports stream with Open and IDs.
func ReadAll(r io.Reader, f Format) ([]Segment, error) {
	rd, err := Open(r, f)
	if err != nil {
		return nil, err
	}
	ids := NewIDs()
	var out []Segment
	for {
		s, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ids.Assign(s))
	}
}

// IDs derives stable segment ids from content: a segment without an id
// gets "imp-" and the first 20 hex digits of the SHA-256 of its speaker,
// times and text, with "-2", "-3", … when consecutive segments repeat the
// same content. The same file read again gives the same ids, and the
// deriver holds nothing per segment, so any file streams. It also fills a
// missing speaker name ("Unknown"), speaker id (Slug of the name) and
// confidence (1).
type IDs struct {
	last    [sha256.Size]byte
	repeats int
}

// NewIDs returns an id deriver for one file.
func NewIDs() *IDs { return &IDs{} }

// Assign returns s with its id, speaker and confidence filled.
func (d *IDs) Assign(s Segment) Segment {
	if s.SpeakerName == "" {
		s.SpeakerName = "Unknown"
	}
	if s.SpeakerID == "" {
		s.SpeakerID = qmsum.Slug(s.SpeakerName)
	}
	if s.Confidence == 0 {
		s.Confidence = 1
	}
	if s.ID != "" {
		return s
	}
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(s.StartMS))
	h.Write(b[:])
	binary.BigEndian.PutUint64(b[:], uint64(s.EndMS))
	h.Write(b[:])
	h.Write([]byte(s.SpeakerName))
	h.Write([]byte{0})
	h.Write([]byte(s.Text))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	if sum == d.last {
		d.repeats++
	} else {
		d.last, d.repeats = sum, 1
	}
	s.ID = "imp-" + hex.EncodeToString(sum[:10])
	if d.repeats > 1 {
		s.ID += fmt.Sprintf("-%d", d.repeats)
	}
	return s
}

// errTooLong is a line over maxLineBytes.
var errTooLong = errors.New("line too long")

// maxLineBytes bounds one line of any format.
const maxLineBytes = 1 << 20

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
