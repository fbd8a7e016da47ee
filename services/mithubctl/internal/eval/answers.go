package eval

import (
	"context"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/rouge"
)

// Answer methods, in report order.
const (
	AnsOurs   = "mithub"
	AnsBM25   = "BM25-best turns, same length"
	AnsRandom = "random run of turns, same length"
)

var ansMethods = []string{AnsOurs, AnsBM25, AnsRandom}

// Ans sums one answer method's scores over a meeting's queries.
type Ans struct {
	N     int     `json:"answers"`
	R1    float64 `json:"rouge1_f1_sum"`
	R2    float64 `json:"rouge2_f1_sum"`
	RL    float64 `json:"rougeL_f1_sum"`
	Cited int     `json:"citing_span"`
	Words int     `json:"words_sum"`
}

// QueryAnswer is MitHub's answer to one specific query, for the JSON.
type QueryAnswer struct {
	Query     string  `json:"query"`
	Reference string  `json:"reference"`
	Answer    string  `json:"answer"`
	Scored    string  `json:"scored_text"`
	R1        float64 `json:"rouge1_f1"`
	R2        float64 `json:"rouge2_f1"`
	RL        float64 `json:"rougeL_f1"`
	CitesSpan bool    `json:"cites_span"`
	Cited     []int   `json:"cited_turns"`
	// Provider wrote the answer ("local", "openai").
	Provider string `json:"provider"`
}

func (a *Ans) add(ref, text string, cites bool) rouge.Scores {
	s := rouge.Compare(ref, text)
	a.N++
	a.R1 += s.R1.F1
	a.R2 += s.R2.F1
	a.RL += s.RL.F1
	a.Words += len(strings.Fields(text))
	if cites {
		a.Cited++
	}
	return s
}

var (
	citeMarkRE = regexp.MustCompile(`\[\d{1,6}(?:\s*,\s*\d{1,6})*\]`)
	bulletRE   = regexp.MustCompile(`^\s*(?:[-*•]|\d+[.)])\s+`)
)

// ScoredText is the part of an answer that ROUGE scores: its lines
// without a lead line (a first line ending in ':' followed by more
// lines), without warning lines (starting with ⚠), bullets and [n]
// citation markers.
func ScoredText(answer string) string {
	lines := strings.Split(strings.TrimSpace(answer), "\n")
	if len(lines) > 1 && strings.HasSuffix(strings.TrimSpace(lines[0]), ":") {
		lines = lines[1:]
	}
	var out []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "⚠") {
			continue
		}
		l = bulletRE.ReplaceAllString(l, "")
		l = citeMarkRE.ReplaceAllString(l, "")
		out = append(out, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(out, " ")
}

// cutWords keeps the first n words of the texts, joined.
func cutWords(texts []string, n int) string {
	var words []string
	for _, t := range texts {
		for _, w := range strings.Fields(t) {
			if len(words) == n {
				return strings.Join(words, " ")
			}
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

// bm25Cut is the BM25 baseline: the best turns for the query (ranked
// indexes into turns), as many as reach n words, in meeting order, cut
// to n words; and the turns it used.
func bm25Cut(turns []meetingctx.Turn, ranked []int, n int) (string, []int) {
	var used []int
	words := 0
	for _, i := range ranked {
		if words >= n {
			break
		}
		used = append(used, i)
		words += len(strings.Fields(turns[i].Text))
	}
	slices.Sort(used)
	texts := make([]string, len(used))
	for k, i := range used {
		texts[k] = turns[i].Text
	}
	return cutWords(texts, n), used
}

// randomRun is the random baseline: turns from a random start, as many
// as reach n words, cut to n words; and the turns it used.
func randomRun(turns []meetingctx.Turn, rng *rand.Rand, n int) (string, []int) {
	if len(turns) == 0 {
		return "", nil
	}
	var used []int
	var texts []string
	words := 0
	for i := rng.IntN(len(turns)); i < len(turns) && words < n; i++ {
		used = append(used, i)
		texts = append(texts, turns[i].Text)
		words += len(strings.Fields(turns[i].Text))
	}
	return cutWords(texts, n), used
}

// answerQuery asks one specific query through the API and scores the
// answer and the baselines of the same length. relevant says whether a
// spoken-turn index lies in an annotated span.
func answerQuery(ctx context.Context, client *apiclient.Client, meetingID string, q qmsum.SpecificQuery, turns []meetingctx.Turn,
	relevant func(int) bool, rng *rand.Rand, res map[string]Ans) (QueryAnswer, error) {
	got, err := client.Ask(ctx, meetingID, apiclient.AskRequest{Question: q.Query})
	if err != nil {
		return QueryAnswer{}, err
	}
	text := ScoredText(got.Answer)
	qa := QueryAnswer{Query: q.Query, Reference: q.Answer, Answer: got.Answer, Scored: text, Provider: got.Provider}
	for _, c := range got.Citations {
		qa.Cited = append(qa.Cited, int(c.Seq))
		qa.CitesSpan = qa.CitesSpan || relevant(int(c.Seq))
	}
	a := res[AnsOurs]
	s := a.add(q.Answer, text, qa.CitesSpan)
	res[AnsOurs] = a
	qa.R1, qa.R2, qa.RL = s.R1.F1, s.R2.F1, s.RL.F1

	n := max(len(strings.Fields(text)), 1)
	anyRelevant := func(is []int) bool { return slices.ContainsFunc(is, relevant) }
	hits := meetingctx.RankTurns(meetingctx.TurnQuery{Query: q.Query, Turns: turns}, meetingctx.TurnWeights{BM25: 1}, len(turns))
	ranked := make([]int, len(hits))
	for i, h := range hits {
		ranked[i] = h.Seq
	}
	bt, bused := bm25Cut(turns, ranked, n)
	b := res[AnsBM25]
	b.add(q.Answer, bt, anyRelevant(bused))
	res[AnsBM25] = b
	rt, rused := randomRun(turns, rng, n)
	r := res[AnsRandom]
	r.add(q.Answer, rt, anyRelevant(rused))
	res[AnsRandom] = r
	return qa, nil
}
