package ask

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/textutil"
)

// Answer is a finished answer.
type Answer struct {
	Text      string     `json:"answer"`
	Citations []Citation `json:"citations"`
	Provider  string     `json:"provider"`
	Warnings  []string   `json:"warnings"`
}

// Answerer answers from a packed context. onToken receives the answer
// text piece by piece as it is produced; an error from it stops the
// answer and is returned.
type Answerer interface {
	Answer(ctx context.Context, c Context, call Call, query string, onToken func(string) error) (Answer, error)
}

// Extractive answers without a model: it quotes the turns of the context
// that best match the query (BM25 over the context's turns), with
// citations, and says that it is an extractive answer.
type Extractive struct {
	// Quotes is the number of turns quoted; default 3.
	Quotes int
}

// Answer implements Answerer.
func (e Extractive) Answer(_ context.Context, c Context, call Call, query string, onToken func(string) error) (Answer, error) {
	k := e.Quotes
	if k <= 0 {
		k = 3
	}
	korean := hasHangul(query)
	var picked []int
	var intro string
	switch call {
	case CallCatchUp, CallSummary, CallPR:
		picked = lastSubstantive(c, k+2)
		intro = pick(korean, "놓친 부분의 주요 발언입니다 (local 제공자: 발췌 요약, 생성된 답이 아님):",
			"Here is what was said (local provider: extractive, quoted from the transcript, not generated):")
	default:
		picked = bestTurns(c, query, k)
		intro = pick(korean, "회의 기록에서 질문과 가장 관련 있는 발언입니다 (local 제공자: 발췌, 생성된 답이 아님):",
			"The turns of the meeting that best match the question (local provider: extractive, quoted, not generated):")
	}
	if len(picked) == 0 {
		text := pick(korean, "지금까지의 회의 기록에서 이 질문에 대한 내용을 찾지 못했습니다.",
			"I could not find anything about this in the meeting so far.")
		if err := onToken(text); err != nil {
			return Answer{}, err
		}
		return Answer{Text: text, Citations: []Citation{}, Provider: "local", Warnings: []string{}}, nil
	}
	ans := Answer{Provider: "local", Warnings: []string{}}
	var sb strings.Builder
	emit := func(s string) error {
		sb.WriteString(s)
		return onToken(s)
	}
	if err := emit(intro + "\n"); err != nil {
		return Answer{}, err
	}
	var low []string
	for i, idx := range picked {
		t := c.Turns[idx]
		cit := CitationOf(i+1, t)
		// The citation number in the answer is the context line number,
		// so answers from either answerer cite the same way.
		cit.N = idx + 1
		ans.Citations = append(ans.Citations, cit)
		name := t.SpeakerName
		if name == "" {
			name = t.SpeakerID
		}
		line := fmt.Sprintf("- %s (%s): \"%s\" [%d]\n", name, Clock(t.StartMS), quote(t.Text, 300), cit.N)
		if err := emit(line); err != nil {
			return Answer{}, err
		}
		if cit.LowConf {
			low = append(low, fmt.Sprintf("[%d]", cit.N))
		}
	}
	if len(low) > 0 {
		w := lowConfidenceWarning(korean, low)
		ans.Warnings = append(ans.Warnings, w)
		if err := emit("⚠ " + w + "\n"); err != nil {
			return Answer{}, err
		}
	}
	ans.Text = strings.TrimRight(sb.String(), "\n")
	return ans, nil
}

func lowConfidenceWarning(korean bool, refs []string) string {
	return pick(korean, "음성 인식 신뢰도가 낮은 발언을 인용했습니다: "+strings.Join(refs, ", "),
		"Some cited turns have low transcription confidence: "+strings.Join(refs, ", "))
}

func pick(korean bool, ko, en string) string {
	if korean {
		return ko
	}
	return en
}

func hasHangul(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

// quote shortens text to at most n runes on a word boundary.
func quote(text string, n int) string {
	text = oneLine(strings.TrimSpace(text))
	r := []rune(text)
	if len(r) <= n {
		return text
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// bestTurns returns the indexes of the context's k turns that best match
// the query (BM25), in seq order.
func bestTurns(c Context, query string, k int) []int {
	scores := Score(c.Turns, query)
	idx := make([]int, 0, len(scores))
	for i, s := range scores {
		if s > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	idx = idx[:min(k, len(idx))]
	slices.SortFunc(idx, func(a, b int) int { return c.Turns[a].Seq - c.Turns[b].Seq })
	return idx
}

// Score returns each turn's BM25 score for the query, with the turns as
// the collection; 0 for a turn that shares no term with it. Turn length is
// counted in words. A turn whose lowercased text contains no query term
// is skipped without being tokenised: every term is a lowercased word or
// a Hangul stem, so it occurs in the text of any turn that has it.
func Score(turns []meetingctx.Turn, query string) []float64 {
	q := queryTerms(query)
	out := make([]float64, len(turns))
	if len(q) == 0 || len(turns) == 0 {
		return out
	}
	tfs := make([]map[string]int, len(turns))
	lens := make([]int, len(turns))
	var buf []string
	for i, t := range turns {
		lens[i] = wordCount(t.Text)
		if !containsAny(strings.ToLower(t.Text), q) {
			continue
		}
		buf = textutil.Terms(buf[:0], t.Text)
		tfs[i] = termFreqs(buf, q)
	}
	bm25(out, tfs, lens)
	return out
}

// Indexed is a turn with its search terms, computed once so the turn can
// be scored against many queries.
type Indexed struct {
	Turn  meetingctx.Turn
	Terms []string
	Words int
}

// Index computes the search terms of turns.
func Index(turns []meetingctx.Turn) []Indexed {
	out := make([]Indexed, len(turns))
	for i, t := range turns {
		out[i] = Indexed{Turn: t, Terms: textutil.Terms(nil, t.Text), Words: wordCount(t.Text)}
	}
	return out
}

// ScoreIndexed is Score over indexed turns.
func ScoreIndexed(docs []Indexed, query string) []float64 {
	q := queryTerms(query)
	out := make([]float64, len(docs))
	if len(q) == 0 || len(docs) == 0 {
		return out
	}
	tfs := make([]map[string]int, len(docs))
	lens := make([]int, len(docs))
	for i, d := range docs {
		lens[i] = d.Words
		tfs[i] = termFreqs(d.Terms, q)
	}
	bm25(out, tfs, lens)
	return out
}

func queryTerms(query string) map[string]bool {
	q := map[string]bool{}
	for _, w := range textutil.Terms(nil, query) {
		q[w] = true
	}
	return q
}

// termFreqs counts the query terms among terms; nil when there are none.
func termFreqs(terms []string, q map[string]bool) map[string]int {
	var tf map[string]int
	for _, w := range terms {
		if q[w] {
			if tf == nil {
				tf = map[string]int{}
			}
			tf[w]++
		}
	}
	return tf
}

// bm25 writes into out the BM25 score of each document given its query
// term frequencies and its length.
func bm25(out []float64, tfs []map[string]int, lens []int) {
	df := map[string]int{}
	total := 0
	for i, tf := range tfs {
		total += lens[i]
		for w := range tf {
			df[w]++
		}
	}
	avg := float64(total) / float64(len(lens))
	for i, tf := range tfs {
		for w, f := range tf {
			out[i] += textutil.BM25(f, df[w], len(lens), float64(lens[i]), avg)
		}
	}
}

func containsAny(text string, terms map[string]bool) bool {
	for w := range terms {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// wordCount counts runs of non-space characters.
func wordCount(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		sp := s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'
		if !sp && !in {
			n++
		}
		in = !sp
	}
	return n
}

// lastSubstantive returns the indexes of the last k turns with at least
// five words, in seq order.
func lastSubstantive(c Context, k int) []int {
	idx := make([]int, len(c.Turns))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return c.Turns[a].Seq - c.Turns[b].Seq })
	var out []int
	for i := len(idx) - 1; i >= 0 && len(out) < k; i-- {
		if len(strings.Fields(c.Turns[idx[i]].Text)) >= 5 {
			out = append(out, idx[i])
		}
	}
	slices.Reverse(out)
	return out
}

// Chat answers with a chat model, streaming its tokens; the [n] markers
// it writes become citations of the context's numbered turns.
type Chat struct {
	Chat      llm.Chatter
	Model     string
	MaxTokens int
	// Provider names the provider in answers; default "openai".
	Provider string
}

// Answer implements Answerer.
func (a Chat) Answer(ctx context.Context, c Context, _ Call, query string, onToken func(string) error) (Answer, error) {
	resp, err := a.Chat.ChatStream(ctx, llm.ChatRequest{
		Model: a.Model, MaxTokens: a.MaxTokens, Temperature: 0.2,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: c.System}, {Role: llm.RoleUser, Content: c.User}},
	}, onToken)
	if err != nil {
		return Answer{}, fmt.Errorf("answer: %w", err)
	}
	provider := a.Provider
	if provider == "" {
		provider = "openai"
	}
	ans := Answer{Text: resp.Content, Citations: CitationsIn(resp.Content, c), Provider: provider, Warnings: []string{}}
	var low []string
	for _, cit := range ans.Citations {
		if cit.LowConf {
			low = append(low, fmt.Sprintf("[%d]", cit.N))
		}
	}
	if len(low) > 0 {
		ans.Warnings = append(ans.Warnings, lowConfidenceWarning(hasHangul(query), low))
	}
	return ans, nil
}

var citeRE = regexp.MustCompile(`\[(\d{1,6})(?:\s*,\s*\d{1,6})*\]`)
var numRE = regexp.MustCompile(`\d{1,6}`)

// CitationsIn returns the citations for the [n] and [n, m] markers in
// text that name a turn of c, once each, in order of first mention.
func CitationsIn(text string, c Context) []Citation {
	out := []Citation{}
	seen := map[int]bool{}
	for _, m := range citeRE.FindAllString(text, -1) {
		for _, d := range numRE.FindAllString(m, -1) {
			n, _ := strconv.Atoi(d)
			if n < 1 || n > len(c.Turns) || seen[n] {
				continue
			}
			seen[n] = true
			out = append(out, CitationOf(n, c.Turns[n-1]))
		}
	}
	return out
}
