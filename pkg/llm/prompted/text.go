package prompted

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/meetingctx"
)

// oneLine collapses all whitespace, line breaks included, to single
// spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}

// clip cuts s to at most n runes and marks the cut with an ellipsis, for
// text shown to the model.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return truncate(s, n-1) + "…"
}

func speaker(t meetingctx.Turn) string {
	for _, s := range []string{t.SpeakerName, t.SpeakerID} {
		if s = oneLine(s); s != "" {
			return s
		}
	}
	return "Unknown"
}

// writeTurn renders a turn as "[seq] Speaker: text".
func writeTurn(b *strings.Builder, t meetingctx.Turn, maxRunes int) {
	fmt.Fprintf(b, "[%d] %s: %s\n", t.Seq, speaker(t), clip(oneLine(t.Text), maxRunes))
}

// cleanSummary makes a model's summary one line of at most
// MaxSummaryRunes characters.
func cleanSummary(s string) string { return truncate(oneLine(s), MaxSummaryRunes) }

func cleanTitle(s string) string {
	return truncate(strings.Trim(oneLine(s), `"'“”‘’#* `), MaxTitleRunes)
}

// cleanKeywords trims, drops empty and repeated keywords, and caps them.
func cleanKeywords(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range in {
		k = truncate(strings.Trim(oneLine(k), `"'“”‘’#,. `), MaxKeywordRunes)
		key := strings.ToLower(k)
		if k == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, k)
		if len(out) == MaxKeywords {
			break
		}
	}
	return out
}

func fallbackTitle(start, end int) string { return fmt.Sprintf("Topic_%d_%d", start, end) }

// fallbackSummary is the first turn's text, cut to MaxSummaryRunes.
func fallbackSummary(turns []meetingctx.Turn) string {
	for _, t := range turns {
		if s := cleanSummary(t.Text); s != "" {
			return s
		}
	}
	return ""
}
