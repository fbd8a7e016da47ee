package convmemory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mithub/mithub/pkg/llm"
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

// Local is the offline extractive summarizer: a chunk summary is the
// chunk's most specific sentences (names, numbers, dates, identifiers,
// decisions and their reasons), chosen for specificity and novelty within
// SummaryTokens; a merge chooses again, with the same scorer, among its
// children's sentences within MergeTokens, so facts are carried upward
// rather than re-summarised. One sentence a line, in conversation order,
// in the language of the input; deterministic.
type Local struct {
	// SummaryTokens and MergeTokens are the budgets of a chunk summary and
	// of a merge (defaults LocalSummaryTokens, LocalMergeTokens).
	SummaryTokens, MergeTokens int
}

// Budgets of the local summarizer's outputs.
const (
	LocalSummaryTokens = 64
	LocalMergeTokens   = 128
)

// NewLocal returns the offline summarizer with the default budgets.
func NewLocal() *Local {
	return &Local{SummaryTokens: LocalSummaryTokens, MergeTokens: LocalMergeTokens}
}

// SummarizeChunk implements Summarizer.
func (l *Local) SummarizeChunk(ctx context.Context, turns []Turn) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return l.finish(selectFacts(turnCandidates(turns), cmp.Or(l.SummaryTokens, LocalSummaryTokens))), nil
}

// MergeSummaries implements Summarizer.
func (l *Local) MergeSummaries(ctx context.Context, parts []string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return l.finish(selectFacts(summaryCandidates(parts), cmp.Or(l.MergeTokens, LocalMergeTokens))), nil
}

func (l *Local) finish(lines []string) string {
	return strings.TrimSpace(strings.Join(lines, "\n"))
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
