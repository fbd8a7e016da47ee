package prompted

import (
	"context"
	"fmt"
	"strings"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/lenient"
	"github.com/mithub/mithub/pkg/meetingctx"
)

// Summarizer writes topic titles, summaries and keywords with a chat
// model. It is safe for concurrent use if its Chatter is.
type Summarizer struct {
	chat llm.Chatter
	cfg  Config
}

var _ meetingctx.Summarizer = (*Summarizer)(nil)

// NewSummarizer returns a Summarizer that asks chat.
func NewSummarizer(chat llm.Chatter, cfg Config) *Summarizer {
	return &Summarizer{chat: chat, cfg: cfg.withDefaults()}
}

type summaryReply struct {
	Title    string   `json:"title"`
	Summary  string   `json:"summary"`
	Keywords []string `json:"keywords"`
}

// Summarize asks the model for the summary of turns; hints are the topics
// being merged, if any. When the model fails or its answer is unusable,
// it returns a fallback together with an error (wrapping the Chatter's
// error or ErrUnusable): titled Topic_{first}_{last} with the first turn's
// text as the summary and the hints' keywords, or, without turns, the
// hints' titles and summaries joined. Neither turns nor hints is
// ErrNoInput.
func (s *Summarizer) Summarize(ctx context.Context, turns []meetingctx.Turn, hints []meetingctx.Topic) (meetingctx.Summary, error) {
	fallback, ok := summaryFallback(turns, hints)
	if !ok {
		return meetingctx.Summary{}, ErrNoInput
	}
	what := "topics"
	if len(turns) > 0 {
		what = fmt.Sprintf("seq %d-%d", turns[0].Seq, turns[len(turns)-1].Seq)
	}
	resp, err := s.chat.Chat(ctx, llm.ChatRequest{
		Model: s.cfg.Model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: summarizeSystemPrompt(len(hints) > 0)},
			{Role: llm.RoleUser, Content: s.summarizeUser(turns, hints)},
		},
		MaxTokens:   s.cfg.MaxTokens,
		Temperature: s.cfg.Temperature,
		JSON:        true,
	})
	if err != nil {
		return fallback, fmt.Errorf("summarize %s: %w", what, err)
	}
	var r summaryReply
	err = lenient.Decode(resp.Content, &r)
	if _, ok := err.(*lenient.TypeError); err != nil && !ok {
		return fallback, fmt.Errorf("summarize %s: %w: %w", what, ErrUnusable, err)
	}
	out := meetingctx.Summary{
		Title:    cleanTitle(r.Title),
		Summary:  cleanSummary(r.Summary),
		Keywords: cleanKeywords(r.Keywords),
	}
	if out.Title == "" && out.Summary == "" {
		return fallback, fmt.Errorf("summarize %s: %w: no title or summary", what, ErrUnusable)
	}
	if out.Title == "" {
		out.Title = fallback.Title
	}
	if out.Summary == "" {
		out.Summary = fallback.Summary
	}
	return out, nil
}

// summaryFallback is the summary used when the model gives none.
func summaryFallback(turns []meetingctx.Turn, hints []meetingctx.Topic) (meetingctx.Summary, bool) {
	var keywords, titles, summaries []string
	for _, h := range hints {
		keywords = append(keywords, h.Keywords...)
		titles = append(titles, h.Title)
		summaries = append(summaries, h.Summary)
	}
	switch {
	case len(turns) > 0:
		return meetingctx.Summary{
			Title:    fallbackTitle(turns[0].Seq, turns[len(turns)-1].Seq),
			Summary:  fallbackSummary(turns),
			Keywords: cleanKeywords(keywords),
		}, true
	case len(hints) > 0:
		return meetingctx.Summary{
			Title:    cleanTitle(strings.Join(titles, " / ")),
			Summary:  cleanSummary(strings.Join(summaries, " ")),
			Keywords: cleanKeywords(keywords),
		}, true
	}
	return meetingctx.Summary{}, false
}
