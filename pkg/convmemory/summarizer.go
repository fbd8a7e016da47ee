package convmemory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
)

// Turn is one turn of a conversation.
type Turn struct {
	Seq     int    `json:"seq"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	Tokens  int    `json:"tokens"`
}

// Summarizer writes chunk summaries and merges summaries.
type Summarizer interface {
	// SummarizeChunk summarises a chunk of consecutive turns.
	SummarizeChunk(ctx context.Context, turns []Turn) (string, error)
	// MergeSummaries summarises consecutive summaries into one.
	MergeSummaries(ctx context.Context, parts []string) (string, error)
}

// Local is the offline extractive summarizer (pkg/segment): a summary is
// the chunk's keyword title and its most central sentence. Deterministic,
// in the language of the input.
type Local struct {
	s *segment.Summarizer
}

// NewLocal returns the offline summarizer.
func NewLocal() *Local { return &Local{s: segment.NewSummarizer()} }

// SummarizeChunk implements Summarizer.
func (l *Local) SummarizeChunk(ctx context.Context, turns []Turn) (string, error) {
	ts := make([]meetingctx.Turn, len(turns))
	for i, t := range turns {
		ts[i] = meetingctx.Turn{Seq: t.Seq, SpeakerName: t.Speaker, Text: t.Text}
	}
	return l.summarize(ctx, ts)
}

// MergeSummaries implements Summarizer.
func (l *Local) MergeSummaries(ctx context.Context, parts []string) (string, error) {
	ts := make([]meetingctx.Turn, len(parts))
	for i, p := range parts {
		ts[i] = meetingctx.Turn{Seq: i, Text: p}
	}
	return l.summarize(ctx, ts)
}

func (l *Local) summarize(ctx context.Context, ts []meetingctx.Turn) (string, error) {
	sum, err := l.s.Summarize(ctx, ts, nil)
	if errors.Is(err, segment.ErrNoContent) {
		// No word to pick a sentence by (only symbols): keep the start.
		return fallbackSummary(ts), nil
	}
	if err != nil {
		return "", err
	}
	if sum.Title == "" {
		return sum.Summary, nil
	}
	return sum.Title + " — " + sum.Summary, nil
}

func fallbackSummary(ts []meetingctx.Turn) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.Text)
		b.WriteByte(' ')
		if utf8.RuneCountInString(b.String()) > segment.MaxSummaryRunes {
			break
		}
	}
	return trimRunes(strings.TrimSpace(b.String()), segment.MaxSummaryRunes)
}

func trimRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Chat summarises with a chat model (any llm.Chatter, e.g. the
// OpenAI-compatible client).
type Chat struct {
	Chat  llm.Chatter
	Model string
	// SummaryTokens and MergeTokens cap the answers.
	SummaryTokens, MergeTokens int
}

const chunkPrompt = `You compress a long conversation into memory. Summarise the excerpt below in at most %d words.
Keep decisions, commitments, owners, numbers, names, open questions and technical details; drop small talk.
Write plain prose in the language of the excerpt. Answer with the summary only.`

const mergePrompt = `You compress a long conversation into memory. Below are consecutive summaries of its parts, oldest first.
Merge them into one summary of at most %d words that keeps every decision, commitment, owner, number and open question, in order.
Write plain prose in the language of the summaries. Answer with the summary only.`

// SummarizeChunk implements Summarizer.
func (c Chat) SummarizeChunk(ctx context.Context, turns []Turn) (string, error) {
	var b strings.Builder
	for _, t := range turns {
		b.WriteString(renderTurn(t.Speaker, t.Text))
		b.WriteByte('\n')
	}
	return c.ask(ctx, fmt.Sprintf(chunkPrompt, words(c.SummaryTokens)), b.String(), c.SummaryTokens)
}

// MergeSummaries implements Summarizer.
func (c Chat) MergeSummaries(ctx context.Context, parts []string) (string, error) {
	var b strings.Builder
	for i, p := range parts {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, p)
	}
	return c.ask(ctx, fmt.Sprintf(mergePrompt, words(c.MergeTokens)), b.String(), c.MergeTokens)
}

// words turns a token cap into a word budget that leaves some room.
func words(tokens int) int { return max(tokens*2/3, 10) }

func (c Chat) ask(ctx context.Context, system, user string, maxTokens int) (string, error) {
	resp, err := c.Chat.Chat(ctx, llm.ChatRequest{
		Model: c.Model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: system},
			{Role: llm.RoleUser, Content: user},
		},
		MaxTokens: maxTokens,
	})
	if err != nil {
		return "", fmt.Errorf("summarize: %w", err)
	}
	out := strings.TrimSpace(resp.Content)
	if out == "" {
		return "", errors.New("summarize: empty answer")
	}
	return out, nil
}
