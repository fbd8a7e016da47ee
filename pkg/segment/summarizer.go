package segment

import (
	"context"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// Summarizer writes extractive topic summaries: the summary is the
// sentence of the turns closest to their centroid (fillers and very short
// sentences penalised), trimmed to MaxSummaryRunes; the keywords are the
// topic's most distinctive terms and phrases; the title joins the top two
// to four keywords with " · ". Everything comes from the turns, so the
// output is in their language. It is safe for concurrent use.
type Summarizer struct{}

var _ meetingctx.Summarizer = (*Summarizer)(nil)

// NewSummarizer returns a Summarizer.
func NewSummarizer() *Summarizer { return &Summarizer{} }

// Summarize summarises turns. Hints (the topics being merged, when
// merging) raise the weight of their keywords. Turns without any word give
// ErrNoContent.
func (s *Summarizer) Summarize(ctx context.Context, turns []meetingctx.Turn, hints []meetingctx.Topic) (meetingctx.Summary, error) {
	docs := make([]doc, len(turns))
	for i, t := range turns {
		docs[i] = newDoc(t.Text)
	}
	boost := make(map[string]bool)
	for _, h := range hints {
		for _, k := range h.Keywords {
			for _, t := range contentTerms(k) {
				boost[t] = true
			}
		}
	}
	return s.summarize(ctx, docs, nil, boost)
}

// doc is an analysed turn.
type doc struct {
	text  string
	words []word
	bag   bag
}

func newDoc(text string) doc {
	words := tokenize(text)
	return doc{text: text, words: words, bag: featureBag(words)}
}

// summarize summarises topic; background, when it holds more turns than
// the topic (the segmenter's window), makes keywords distinctive against
// the neighbouring turns; boost lists terms to favour.
func (s *Summarizer) summarize(ctx context.Context, topic, background []doc, boost map[string]bool) (meetingctx.Summary, error) {
	if err := ctx.Err(); err != nil {
		return meetingctx.Summary{}, err
	}
	sentence, ok := centralSentence(topic)
	if !ok {
		return meetingctx.Summary{}, ErrNoContent
	}
	if len(background) <= len(topic) {
		background = nil
	}
	kws := keywords(topic, background, boost, maxKeywords)
	sum := meetingctx.Summary{Summary: trimRunes(sentence, MaxSummaryRunes)}
	for _, k := range kws {
		sum.Keywords = append(sum.Keywords, k.display)
	}
	sum.Title = title(kws, sum.Summary)
	return sum, nil
}

// centralSentence picks the sentence most similar to the centroid of the
// topic's turns, weighted by a length factor; with no content sentence it
// falls back to the longest one. ok is false when no turn has any word.
func centralSentence(topic []doc) (string, bool) {
	bags := make([]bag, 0, len(topic))
	for _, d := range topic {
		if len(d.bag) > 0 {
			bags = append(bags, d.bag)
		}
	}
	centroid := sumBags(bags, func(b bag) float64 { return 1 / math.Sqrt(b.norm()) })
	cnorm := centroid.norm()
	best, bestScore := "", 0.0
	longest := ""
	for _, d := range topic {
		if len(d.words) == 0 {
			continue
		}
		for _, sent := range splitSentences(cleanText(d.text)) {
			words := tokenize(sent)
			if len(words) == 0 {
				continue
			}
			sent = tidySentence(sent)
			if utf8.RuneCountInString(sent) > utf8.RuneCountInString(longest) {
				longest = sent
			}
			sb := featureBag(words)
			if len(sb) == 0 {
				continue
			}
			score := sb.dot(centroid) / (sb.norm() * cnorm) * lengthFactor(words, sent)
			if score > bestScore {
				best, bestScore = sent, score
			}
		}
	}
	switch {
	case best != "":
		return best, true
	case longest != "":
		return longest, true
	}
	return "", false
}

// lengthFactor penalises sentences with fewer than five content words and
// sentences much longer than a summary.
func lengthFactor(words []word, sent string) float64 {
	content := 0
	for _, w := range words {
		if w.content() {
			content++
		}
	}
	f := math.Min(1, float64(content)/5)
	if n := utf8.RuneCountInString(sent); n > MaxSummaryRunes {
		f /= 1 + float64(n-MaxSummaryRunes)/(2*MaxSummaryRunes)
	}
	return f
}

// title joins the top keywords: the first two, and up to two more while
// they score at least titleRatio of the best. Without keywords it is the
// summary's first words.
func title(kws []keyword, summary string) string {
	if len(kws) == 0 {
		return trimRunes(strings.TrimRight(summary, ".?!。"), maxTitleRunes)
	}
	parts := []string{kws[0].display}
	for _, k := range kws[1:] {
		if len(parts) >= 4 || len(parts) >= 2 && k.score < titleRatio*kws[0].score {
			break
		}
		parts = append(parts, k.display)
	}
	return trimRunes(strings.Join(parts, " · "), maxTitleRunes)
}

const (
	maxKeywords   = 5
	titleRatio    = 0.5
	maxTitleRunes = 80
)
