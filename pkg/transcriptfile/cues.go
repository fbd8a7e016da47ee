package transcriptfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/qmsum"
)

// cueReader reads WebVTT (vtt) or SRT cues: an optional id line, a timing
// line "start --> end", then payload lines up to a blank line.
type cueReader struct {
	sc     *bufio.Scanner
	vtt    bool
	line   int
	header bool // the WEBVTT header was read
	// peeked is a line read but not consumed.
	peeked    string
	hasPeeked bool
	err       error
}

func newCueReader(r io.Reader, vtt bool) *cueReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	return &cueReader{sc: sc, vtt: vtt}
}

// next returns the next line without its line ending, and false at the
// end of input or on an error (c.err).
func (c *cueReader) nextLine() (string, bool) {
	if c.hasPeeked {
		c.hasPeeked = false
		return c.peeked, true
	}
	if c.err != nil {
		return "", false
	}
	if !c.sc.Scan() {
		if err := c.sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = fmt.Errorf("%w: longer than %d bytes", errTooLong, maxLineBytes)
			}
			c.err = &LineError{Line: c.line + 1, Err: err}
		}
		return "", false
	}
	c.line++
	b := c.sc.Bytes()
	if c.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\ufeff"))
	}
	b = bytes.TrimRight(b, "\r")
	if !utf8.Valid(b) {
		c.err = lineErrorf(c.line, "not valid UTF-8")
		return "", false
	}
	return string(b), true
}

func (c *cueReader) unread(s string) { c.peeked, c.hasPeeked = s, true }

func (c *cueReader) eof() (Segment, error) {
	if c.err != nil {
		return Segment{}, c.err
	}
	if c.vtt && !c.header {
		return Segment{}, lineErrorf(max(c.line, 1), "not a WebVTT file: it must start with WEBVTT")
	}
	return Segment{}, io.EOF
}

func (c *cueReader) Next() (Segment, error) {
	if c.vtt && !c.header {
		l, ok := c.nextLine()
		if !ok {
			return c.eof()
		}
		if l != "WEBVTT" && !strings.HasPrefix(l, "WEBVTT ") && !strings.HasPrefix(l, "WEBVTT\t") {
			return Segment{}, lineErrorf(c.line, "not a WebVTT file: it must start with WEBVTT")
		}
		c.header = true
		// Header lines run to the first blank line.
		for {
			l, ok := c.nextLine()
			if !ok {
				return c.eof()
			}
			if strings.TrimSpace(l) == "" {
				break
			}
			if strings.Contains(l, "-->") {
				return Segment{}, lineErrorf(c.line, "a blank line must separate the WEBVTT header from the first cue")
			}
		}
	}
	for {
		// Skip blank lines.
		var l string
		for {
			var ok bool
			if l, ok = c.nextLine(); !ok {
				return c.eof()
			}
			if strings.TrimSpace(l) != "" {
				break
			}
		}
		if c.vtt && (l == "NOTE" || strings.HasPrefix(l, "NOTE ") || strings.HasPrefix(l, "NOTE\t") ||
			l == "STYLE" || l == "REGION") {
			if err := c.skipBlock(); err != nil {
				return Segment{}, err
			}
			continue
		}
		idLine := c.line
		timing := l
		if !strings.Contains(l, "-->") {
			// A cue identifier; the timing line follows.
			t, ok := c.nextLine()
			if !ok {
				if c.err != nil {
					return Segment{}, c.err
				}
				return Segment{}, lineErrorf(idLine, "cue %q has no timing line", truncate(l, 40))
			}
			if !strings.Contains(t, "-->") {
				return Segment{}, lineErrorf(c.line, "want a timing line \"00:00:01.000 --> 00:00:04.000\", got %q", truncate(t, 60))
			}
			timing = t
		}
		timingLine := c.line
		start, end, err := parseTiming(timing, c.vtt)
		if err != nil {
			return Segment{}, &LineError{Line: timingLine, Err: err}
		}
		var payload []string
		for {
			p, ok := c.nextLine()
			if !ok {
				if c.err != nil {
					return Segment{}, c.err
				}
				break
			}
			if strings.TrimSpace(p) == "" {
				break
			}
			if strings.Contains(p, "-->") && len(payload) > 0 {
				// A cue without the blank line after it: keep the
				// timing line for the next cue.
				c.unread(p)
				break
			}
			payload = append(payload, p)
		}
		seg, ok := cueSegment(payload)
		if !ok {
			continue // an empty cue
		}
		seg.StartMS, seg.EndMS, seg.Line = start, end, timingLine
		return seg, nil
	}
}

// skipBlock skips lines to the next blank line.
func (c *cueReader) skipBlock() error {
	for {
		l, ok := c.nextLine()
		if !ok {
			return c.err
		}
		if strings.TrimSpace(l) == "" {
			return nil
		}
	}
}

// parseTiming reads "start --> end [settings]".
func parseTiming(l string, vtt bool) (int64, int64, error) {
	a, b, _ := strings.Cut(l, "-->")
	a = strings.TrimSpace(a)
	b = strings.TrimSpace(b)
	if f := strings.Fields(b); len(f) > 0 {
		b = f[0] // cue settings follow the end time
	}
	start, err := parseTimestamp(a)
	if err != nil {
		return 0, 0, fmt.Errorf("start time: %w", err)
	}
	end, err := parseTimestamp(b)
	if err != nil {
		return 0, 0, fmt.Errorf("end time: %w", err)
	}
	if end < start {
		return 0, 0, fmt.Errorf("end time %s is before start time %s", b, a)
	}
	return start, end, nil
}

// maxTimestampMS bounds a timestamp: 1,000 hours.
const maxTimestampMS = 1000 * 3600 * 1000

// parseTimestamp reads [hh:]mm:ss.ttt (a comma also separates the
// milliseconds, as in SRT).
func parseTimestamp(s string) (int64, error) {
	bad := func() (int64, error) {
		return 0, fmt.Errorf("%q is not a timestamp such as 00:01:02.500", truncate(s, 32))
	}
	main, frac, hasFrac := strings.Cut(strings.Replace(s, ",", ".", 1), ".")
	parts := strings.Split(main, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return bad()
	}
	var ms int64
	for i, p := range parts {
		if p == "" || len(p) > 4 || !allDigits(p) {
			return bad()
		}
		n, _ := strconv.ParseInt(p, 10, 64)
		if i > 0 && n > 59 {
			return bad()
		}
		ms = ms*60 + n
	}
	ms *= 1000
	if hasFrac {
		if frac == "" || len(frac) > 3 || !allDigits(frac) {
			return bad()
		}
		for len(frac) < 3 {
			frac += "0"
		}
		n, _ := strconv.ParseInt(frac, 10, 64)
		ms += n
	}
	if ms > maxTimestampMS {
		return bad()
	}
	return ms, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxSpeakerPrefix bounds a "Speaker: text" prefix taken as a name.
const maxSpeakerPrefix = 64

// cueSegment turns a cue's payload into a segment: the speaker of its
// <v Speaker> tag or "Speaker: text" prefix, and its text without markup.
// It reports false for a cue without text.
func cueSegment(payload []string) (Segment, bool) {
	var speaker string
	texts := make([]string, 0, len(payload))
	for _, p := range payload {
		if v, rest, ok := voiceTag(p); ok && speaker == "" {
			speaker, p = v, rest
		}
		p = strings.TrimSpace(stripTags(p))
		if p != "" {
			texts = append(texts, p)
		}
	}
	text := strings.Join(texts, " ")
	if speaker == "" {
		if name, rest, ok := strings.Cut(text, ": "); ok && plausibleName(name) {
			speaker, text = strings.TrimSpace(name), strings.TrimSpace(rest)
		}
	}
	// Runs of white space (a stray carriage return too) become one space.
	text = strings.Join(strings.Fields(unescape(text)), " ")
	speaker = strings.Join(strings.Fields(unescape(speaker)), " ")
	if text == "" {
		return Segment{}, false
	}
	if speaker == "" {
		speaker = "Unknown"
	}
	return Segment{SpeakerName: speaker, SpeakerID: qmsum.Slug(speaker), Text: text, Confidence: 1}, true
}

// voiceTag reads a leading <v Speaker> or <v.class Speaker> tag.
func voiceTag(p string) (string, string, bool) {
	s := strings.TrimLeft(p, " ")
	if !strings.HasPrefix(s, "<v") || len(s) < 3 || (s[2] != ' ' && s[2] != '.' && s[2] != '\t') {
		return "", p, false
	}
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return "", p, false
	}
	tag := s[2:end]
	if tag != "" && tag[0] == '.' {
		// Classes run to the first space.
		i := strings.IndexAny(tag, " \t")
		if i < 0 {
			tag = ""
		} else {
			tag = tag[i:]
		}
	}
	return strings.TrimSpace(tag), s[end+1:], true
}

// stripTags removes <…> markup (voice, class, bold, timestamp tags).
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i+j+1:]
	}
}

var unescaper = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&nbsp;", " ", "&lrm;", "", "&rlm;", "")

func unescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return unescaper.Replace(s)
}

// plausibleName reports whether the text before ": " reads as a speaker
// name: short, at most five words, with a letter and no sentence
// punctuation.
func plausibleName(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxSpeakerPrefix || len(strings.Fields(s)) > 5 {
		return false
	}
	if strings.ContainsAny(s, "?!,;:\"") {
		return false
	}
	for _, r := range s {
		if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r > 0x7f {
			return true
		}
	}
	return false
}
