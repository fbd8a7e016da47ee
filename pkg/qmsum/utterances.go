package qmsum

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mithub/mithub/pkg/apiclient"
)

const (
	// msPerWord is the synthesized speaking time of one word (150 words
	// per minute).
	msPerWord = 60_000 / 150
	// msPerSyllable is the synthesized speaking time of one Hangul
	// syllable (300 syllables per minute); a Korean word counts its
	// syllables instead of 150 words per minute.
	msPerSyllable = 60_000 / 300
	// gapMS is the synthesized silence between two turns.
	gapMS = 300
	// GapMS is gapMS, for readers that synthesize times turn by turn.
	GapMS = gapMS
)

// SpeakingMS is the synthesized speaking time of one turn's text, as
// Utterances gives it: at least one word's.
func SpeakingMS(text string) int64 { return max(speakingMS(text), msPerWord) }

// SegmentID is the segment id of turn (or line) index i: idPrefix-00042.
func SegmentID(idPrefix string, i int) string {
	return fmt.Sprintf("%s-%05d", idPrefix, i)
}

// Utterances converts the meeting's turns into API utterances. Segment ids
// are SegmentID(idPrefix, turn index), speaker ids are Slug(speaker), and
// times are synthesized from word counts at 150 words per minute (Hangul
// words from their syllables at 300 per minute) with a 300 ms gap between
// turns, so they increase monotonically. Turns without
// text are skipped; they keep their index, so ids still match spans.
func Utterances(m *Meeting, idPrefix string) []apiclient.Utterance {
	utts := make([]apiclient.Utterance, 0, len(m.Turns))
	var at int64
	for _, i := range SpokenTurns(m) {
		t := m.Turns[i]
		text := strings.TrimSpace(t.Content)
		speaker := strings.TrimSpace(t.Speaker)
		if speaker == "" {
			speaker = "Unknown"
		}
		end := at + SpeakingMS(text)
		utts = append(utts, apiclient.Utterance{
			SegmentID:   SegmentID(idPrefix, i),
			SpeakerID:   Slug(speaker),
			SpeakerName: speaker,
			Text:        text,
			StartMS:     at,
			EndMS:       end,
			Confidence:  1,
		})
		at = end + gapMS
	}
	return utts
}

// SpokenTurns returns the indexes of the turns that have text, in order:
// the k-th utterance of Utterances is turn SpokenTurns(m)[k].
func SpokenTurns(m *Meeting) []int {
	out := make([]int, 0, len(m.Turns))
	for i, t := range m.Turns {
		if strings.TrimSpace(t.Content) != "" {
			out = append(out, i)
		}
	}
	return out
}

// speakingMS is the synthesized speaking time of text: msPerWord per word,
// or msPerSyllable per Hangul syllable for words with Hangul.
func speakingMS(text string) int64 {
	var ms int64
	for _, f := range strings.Fields(text) {
		syl := 0
		for _, r := range f {
			if unicode.Is(unicode.Hangul, r) {
				syl++
			}
		}
		switch {
		case syl > 0:
			ms += int64(syl) * msPerSyllable
		case strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0:
			ms += msPerWord
		}
	}
	return ms
}

// Slug lower-cases s and joins its runs of letters and digits with "-":
// "Grad E" → "grad-e", "Julie Morgan AM" → "julie-morgan-am". A name
// without letters or digits gives "unknown".
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "unknown"
	}
	return b.String()
}
