package answer

import (
	"context"
	"fmt"
	"strings"

	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/lenient"
	"github.com/mithub/mithub/pkg/textutil"
)

// PlanInput is what the planning step sees.
type PlanInput struct {
	Mode     askmode.Mode
	Question string
	Previous *Exchange
	// Topics and Turns count what the meeting has so far.
	Topics int
	Turns  int
}

// Planner decides how to answer a question.
type Planner interface {
	Plan(ctx context.Context, in PlanInput) (Plan, error)
}

// RulePlanner plans by rules, with no model call: it searches whenever
// the meeting has topics, and resolves follow-ups ("and who owns that?",
// "그건 누가 맡아?") by adding the previous exchange's question to the
// search query.
type RulePlanner struct{}

// Plan implements Planner.
func (RulePlanner) Plan(_ context.Context, in PlanInput) (Plan, error) {
	p := Plan{NextSubquery: strings.TrimSpace(in.Question), MissingRequirements: []string{}}
	if in.Previous != nil && IsFollowUp(in.Question) {
		p.NextSubquery = strings.TrimSpace(in.Previous.Query + " " + in.Question)
	}
	p.NeedSearch = in.Mode == askmode.Answer && in.Topics > 0
	p.CanAnswer = in.Turns > 0
	if in.Turns == 0 {
		p.MissingRequirements = append(p.MissingRequirements, "the meeting has no transcript yet")
	}
	if in.Mode == askmode.Answer && len(textutil.Terms(nil, p.NextSubquery)) == 0 {
		p.MissingRequirements = append(p.MissingRequirements, "the question has no searchable words")
	}
	switch {
	case !p.CanAnswer:
		p.Plan = "nothing to answer from yet"
	case p.NeedSearch:
		p.Plan = fmt.Sprintf("search %d topics for %q, then answer from their turns and the latest turns", in.Topics, p.NextSubquery)
	default:
		p.Plan = "answer from the latest turns"
	}
	return p, nil
}

// anaphora mark a question that leans on the previous exchange.
var anaphora = map[string]bool{
	"that": true, "it": true, "this": true, "those": true, "these": true, "they": true, "them": true,
	"he": true, "she": true, "him": true, "her": true, "there": true, "then": true, "one": true,
	"그거": true, "그것": true, "그건": true, "그게": true, "이거": true, "이것": true, "그": true,
	"거기": true, "그분": true, "그사람": true, "그때": true, "저거": true,
}

// IsFollowUp reports whether q leans on a previous exchange: it starts
// with "and" / "그럼" / "그리고", names something by a pronoun, or is too
// short to stand alone.
func IsFollowUp(q string) bool {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return false
	}
	first := strings.Trim(words[0], ",.?!")
	switch first {
	case "and", "also", "so", "then", "그럼", "그리고", "그러면", "근데", "그래서":
		return true
	}
	for _, w := range words {
		w = strings.Trim(w, ",.?!\"'")
		if anaphora[w] {
			return true
		}
		// Korean demonstratives glued to a particle: 그건, 그걸, 그거는.
		if strings.HasPrefix(w, "그거") || strings.HasPrefix(w, "그것") || strings.HasPrefix(w, "이거") {
			return true
		}
	}
	return len(textutil.Terms(nil, q)) <= 2
}

// ChatPlanner asks a chat model for the plan and falls back to the rules
// when the call fails or its JSON cannot be read.
type ChatPlanner struct {
	Chat  llm.Chatter
	Model string
}

// Plan implements Planner.
func (p ChatPlanner) Plan(ctx context.Context, in PlanInput) (Plan, error) {
	rules, _ := RulePlanner{}.Plan(ctx, in)
	var prev string
	if in.Previous != nil {
		prev = "Previous question: " + oneLine(in.Previous.Question) + "\nPrevious answer: " + oneLine(in.Previous.Answer) + "\n"
	}
	resp, err := p.Chat.Chat(ctx, llm.ChatRequest{
		Model: p.Model, JSON: true, MaxTokens: 300,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: planPrompt},
			{Role: llm.RoleUser, Content: fmt.Sprintf("%sMeeting so far: %d turns, %d topics.\nQuestion: %s", prev, in.Turns, in.Topics, in.Question)},
		},
	})
	if err != nil {
		return rules, nil
	}
	var got Plan
	if err := lenient.Decode(resp.Content, &got); err != nil || strings.TrimSpace(got.NextSubquery) == "" {
		return rules, nil
	}
	got.NeedSearch = got.NeedSearch && in.Topics > 0
	if got.MissingRequirements == nil {
		got.MissingRequirements = []string{}
	}
	return got, nil
}

const planPrompt = `You plan how an assistant answers a question about a live meeting. Reply with one JSON object:
{"plan": "<one sentence>", "need_search": <true if the meeting's topics must be searched>,
 "can_answer": <true if a meeting transcript can answer it>,
 "next_subquery": "<a standalone search query; resolve pronouns using the previous exchange>",
 "missing_requirements": ["<what is missing to answer>", ...]}`
