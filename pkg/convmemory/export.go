package convmemory

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mithub/mithub/pkg/conversation"
)

// Summary is an exported summary node with the turns it spans.
type Summary struct {
	Level    int    `json:"level"`
	Seq      int    `json:"seq"`
	FromTurn int    `json:"from_turn"`
	ToTurn   int    `json:"to_turn"`
	Text     string `json:"text"`
	Tokens   int    `json:"tokens"`
}

// Export is a whole conversation: its turns and every stored summary.
type Export struct {
	Conversation conversation.Conversation `json:"conversation"`
	Stats        Stats                     `json:"stats"`
	Turns        []Turn                    `json:"turns"`
	Summaries    []Summary                 `json:"summaries"`
}

// Export returns the whole conversation.
func (s *Service) Export(ctx context.Context, tenantID, convID string) (Export, error) {
	c, err := s.Get(ctx, tenantID, convID)
	if err != nil {
		return Export{}, err
	}
	st, err := s.Stats(ctx, tenantID, convID)
	if err != nil {
		return Export{}, err
	}
	turns, err := s.e.st.NodesAtLevel(ctx, tenantID, convID, 0, 0, math.MaxInt32)
	if err != nil {
		return Export{}, mapErr(err)
	}
	x := Export{Conversation: c, Stats: st, Turns: make([]Turn, len(turns))}
	span := map[int64][2]int{}
	for i, n := range turns {
		sp, txt := decodeTurn(n.Text)
		x.Turns[i] = Turn{Seq: n.Seq, Speaker: sp, Text: txt, Tokens: n.Tokens}
		span[n.ID] = [2]int{n.Seq, n.Seq}
	}
	for level := 1; level <= st.Levels; level++ {
		nodes, err := s.e.st.NodesAtLevel(ctx, tenantID, convID, level, 0, math.MaxInt32)
		if err != nil {
			return Export{}, mapErr(err)
		}
		for _, n := range nodes {
			sum := Summary{Level: n.Level, Seq: n.Seq, Text: n.Text, Tokens: n.Tokens, FromTurn: -1, ToTurn: -1}
			for _, id := range n.ChildIDs {
				if sp, ok := span[id]; ok {
					if sum.FromTurn < 0 || sp[0] < sum.FromTurn {
						sum.FromTurn = sp[0]
					}
					sum.ToTurn = max(sum.ToTurn, sp[1])
				}
			}
			span[n.ID] = [2]int{sum.FromTurn, sum.ToTurn}
			x.Summaries = append(x.Summaries, sum)
		}
	}
	sort.SliceStable(x.Summaries, func(i, j int) bool {
		a, b := x.Summaries[i], x.Summaries[j]
		if a.Level != b.Level {
			return a.Level > b.Level
		}
		return a.Seq < b.Seq
	})
	return x, nil
}

// Markdown renders the export: title, statistics, the summaries from the
// top level down, then the transcript.
func (x Export) Markdown() string {
	var b strings.Builder
	title := x.Conversation.Title
	if title == "" {
		title = "Conversation " + x.Conversation.ID
	}
	fmt.Fprintf(&b, "# %s\n\n", oneLine(title))
	fmt.Fprintf(&b, "- id: `%s`\n- kind: %s\n- turns: %d\n- tokens: %d (live %d, ratio %.3f)\n- summary levels: %d\n\n",
		x.Conversation.ID, x.Conversation.Kind, x.Stats.Turns, x.Stats.RawTokens, x.Stats.LiveTokens,
		x.Stats.CompressionRatio, x.Stats.Levels)
	if len(x.Summaries) > 0 {
		b.WriteString("## Summaries\n")
		level := -1
		for _, s := range x.Summaries {
			if s.Level != level {
				level = s.Level
				fmt.Fprintf(&b, "\n### Level %d\n\n", level)
			}
			fmt.Fprintf(&b, "- **turns %d-%d**: %s\n", s.FromTurn, s.ToTurn, oneLine(s.Text))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Transcript\n\n")
	for _, t := range x.Turns {
		sp := t.Speaker
		if sp == "" {
			sp = "unknown"
		}
		fmt.Fprintf(&b, "**%s** (%d): %s\n\n", oneLine(sp), t.Seq, oneLine(t.Text))
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
