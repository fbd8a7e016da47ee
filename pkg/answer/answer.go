package answer

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/askmode"
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
	Answer(ctx context.Context, c Context, mode askmode.Mode, query string, onToken func(string) error) (Answer, error)
}

// Extractive answers without a generative model: it extracts the
// sentences of the context's turns that best answer the query, cleaned
// for reading (cleantext: no transcription markers, fillers, false
// starts or repetitions; the stored turns stay verbatim), ranked by the
// learned AnswerModel over turn search and sentence features, with MMR
// against redundancy, to a length that suits the question, in meeting
// order. The answer says that it is extracted, and every point cites its
// turn [n] (n is the context line number, as with a model's answer).
// A catch-up extracts from the period's turns without a query.
type Extractive struct {
	// MinWords and MaxWords bound the answer's length in words (defaults
	// DefaultMinWords and DefaultMaxWords); within them the model picks a
	// target for the kind of question.
	MinWords, MaxWords int
	// Model ranks the sentences (nil: DefaultAnswerModel).
	Model *AnswerModel
}

// Default bounds of an extractive answer's length, in words.
const (
	DefaultMinWords = 40
	DefaultMaxWords = 90
)

// ReadsPrompt is false: the extractive answerer reads only the context's
// numbered turns.
func (Extractive) ReadsPrompt() bool { return false }

// ReadsPrompt reports whether a reads Context.System (true unless it says
// otherwise), so a context for it must be built without Input.TurnsOnly.
func ReadsPrompt(a Answerer) bool {
	if r, ok := a.(interface{ ReadsPrompt() bool }); ok {
		return r.ReadsPrompt()
	}
	return true
}

// Bounds returns the answer length bounds with defaults filled in.
func (e Extractive) Bounds() (minWords, maxWords int) {
	minWords, maxWords = e.MinWords, e.MaxWords
	if minWords <= 0 {
		minWords = DefaultMinWords
	}
	if maxWords <= 0 {
		maxWords = max(DefaultMaxWords, minWords)
	}
	return min(minWords, maxWords), maxWords
}

// Answer implements Answerer.
func (e Extractive) Answer(_ context.Context, c Context, mode askmode.Mode, query string, onToken func(string) error) (Answer, error) {
	m := DefaultAnswerModel
	if e.Model != nil {
		m = *e.Model
	}
	minW, maxW := e.Bounds()
	korean := hasHangul(query)
	catchUp := mode == askmode.CatchUp
	if catchUp {
		korean = korean || contextKorean(c)
	}
	// The lead line goes out first, before the extraction: the asker
	// sees the answer start at once. The rest goes out as one piece,
	// which costs the stream one more write instead of one per line.
	intro := pick(korean, "회의 기록에서 발췌한 문장입니다 (local 제공자, 생성된 답이 아님):",
		"Extracted from the transcript (local provider: quoted sentences, not generated):")
	if catchUp {
		intro = pick(korean, "놓친 부분의 주요 발언을 회의 기록에서 발췌했습니다 (local 제공자, 생성된 답이 아님):",
			"Extracted from the transcript: what was said (local provider: quoted sentences, not generated):")
	}
	if err := onToken(intro + "\n"); err != nil {
		return Answer{}, err
	}
	var points []Point
	if catchUp {
		points = m.Extract(c, "", minW, maxW)
	} else {
		points = m.Extract(c, query, minW, maxW)
	}
	ans := Answer{Provider: "local", Warnings: []string{}, Citations: []Citation{}}
	var sb strings.Builder
	if len(points) == 0 {
		sb.WriteString(pick(korean, "지금까지의 회의 기록에서 이 질문에 대한 내용을 찾지 못했습니다.",
			"I could not find anything about this in the meeting so far.") + "\n")
	}
	var low []string
	cited := map[int]bool{}
	for _, line := range Bullets(points) {
		fmt.Fprintf(&sb, "- %s:", line[0].Speaker)
		for _, p := range line {
			// The citation number in the answer is the context line
			// number, so answers from either answerer cite the same way.
			n := p.Turn + 1
			fmt.Fprintf(&sb, " %s [%d]", p.Text, n)
			if cited[n] {
				continue
			}
			cited[n] = true
			cit := CitationOf(n, *c.Turns[p.Turn])
			ans.Citations = append(ans.Citations, cit)
			if cit.LowConf {
				low = append(low, fmt.Sprintf("[%d]", cit.N))
			}
		}
		sb.WriteByte('\n')
	}
	if len(low) > 0 {
		w := lowConfidenceWarning(korean, low)
		ans.Warnings = append(ans.Warnings, w)
		sb.WriteString("⚠ " + w + "\n")
	}
	ans.Text = strings.TrimRight(intro+"\n"+sb.String(), "\n")
	if err := onToken(sb.String()); err != nil {
		return Answer{}, err
	}
	return ans, nil
}

// contextKorean reports whether most of the context's turns are Korean.
func contextKorean(c Context) bool {
	k := 0
	for _, t := range c.Turns {
		if hasHangul(t.Text) {
			k++
		}
	}
	return 2*k > len(c.Turns)
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

// Score returns each turn's BM25 score for the query, with the turns as
// the collection; 0 for a turn that shares no term with it. Turn length is
// counted in words. A turn whose lowercased text contains no query term
// is skipped without being tokenised: every term is a lowercased word or
// a Hangul stem, so it occurs in the text of any turn that has it.
func Score(turns []meetingctx.Turn, query string) []float64 {
	return score(len(turns), query, func(i int) (*meetingctx.Turn, *Indexed) { return &turns[i], nil })
}

// scoreContext is Score over a context's turns, using the search terms
// its builder was given where it has them.
func scoreContext(c Context, query string) []float64 {
	return score(len(c.Turns), query, func(i int) (*meetingctx.Turn, *Indexed) {
		if i < len(c.index) {
			return c.Turns[i], c.index[i]
		}
		return c.Turns[i], nil
	})
}

// Indexed is a turn with its search terms, computed once so the turn can
// be scored against many queries.
type Indexed struct {
	Turn meetingctx.Turn
	// Terms are the turn's distinct search terms, sorted; Freqs[i] is how
	// often Terms[i] occurs.
	Terms []string
	Freqs []int32
	// Stems and StemFreqs are the same for the turn's stemmed terms
	// (textutil.Stemmed), which turn search reads; they share Terms and
	// Freqs when stemming changes none of them.
	Stems     []string
	StemFreqs []int32
	Words     int
	// nterms is the sum of Freqs.
	nterms int
	// sig has bit termBit(w) set for every term w: a clear bit proves a
	// term absent without searching Terms; stemSig is the same for Stems.
	sig, stemSig termSig
	// wake caches what a wake-word matcher found in the turn (see
	// Exclusion.wake): the matcher's ID << 2 | a wakeResult, read and
	// written atomically, since indexes are shared by concurrent asks.
	wake uint32
	// sents are the turn's cleaned sentences, computed once, by the first
	// extractive answer that reads them.
	sents *turnSentences
}

// termSig is a 128-bit Bloom signature of a set of terms.
type termSig [2]uint64

// termBit returns w's bit: FNV-1a of w, modulo 128.
func termBit(w string) (word int, bit uint64) {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint32(w[i])) * 16777619
	}
	return int(h>>6) & 1, 1 << (h & 63)
}

// Index computes the search terms of turns.
func Index(turns []meetingctx.Turn) []Indexed {
	out := make([]Indexed, len(turns))
	var buf, stems []string
	// A meeting's turns repeat their words: each is stemmed once.
	memo := map[string]string{}
	for i, t := range turns {
		buf = textutil.Terms(buf[:0], t.Text)
		stems = stems[:0]
		stemmed := false
		for _, w := range buf {
			s, ok := memo[w]
			if !ok {
				s = textutil.Stem(w)
				memo[w] = s
			}
			stems = append(stems, s)
			stemmed = stemmed || s != w
		}
		d := Indexed{Turn: t, Words: wordCount(t.Text), sents: &turnSentences{}}
		d.Terms, d.Freqs, d.sig = countTerms(buf)
		d.nterms = len(buf)
		d.Stems, d.StemFreqs, d.stemSig = d.Terms, d.Freqs, d.sig
		if stemmed {
			d.Stems, d.StemFreqs, d.stemSig = countTerms(stems)
		}
		out[i] = d
	}
	return out
}

// countTerms sorts terms and returns the distinct ones, sorted, with
// their counts and signature.
func countTerms(terms []string) ([]string, []int32, termSig) {
	slices.Sort(terms)
	var distinct []string
	var freqs []int32
	var sig termSig
	for j, w := range terms {
		if j > 0 && w == terms[j-1] {
			freqs[len(freqs)-1]++
			continue
		}
		distinct = append(distinct, w)
		freqs = append(freqs, 1)
		word, bit := termBit(w)
		sig[word] |= bit
	}
	return slices.Clip(distinct), slices.Clip(freqs), sig
}

// Terms is a meetingctx.TurnTerms over indexed turns: turn search reads
// their terms from the index, and the Bloom signatures rule out most
// turns without a lookup.
type Terms []*Indexed

// Terms is the number of search terms of turn i.
func (x Terms) Terms(i int) int { return x[i].nterms }

// Count calls add(i, j, n) for each turn i with n > 0 occurrences of the
// stemmed term qterms[j].
func (x Terms) Count(qterms []string, add func(i, j, n int)) {
	countTurns(x, 0, qterms, termBits(qterms), add)
}

// termBits returns termBit of each term.
func termBits(terms []string) []termBitOf {
	out := make([]termBitOf, len(terms))
	for j, w := range terms {
		out[j].word, out[j].bit = termBit(w)
	}
	return out
}

type termBitOf struct {
	word int
	bit  uint64
}

// countTurns is Terms.Count over docs numbered from off.
func countTurns(docs []*Indexed, off int, qterms []string, bits []termBitOf, add func(i, j, n int)) {
	for i, d := range docs {
		for j, w := range qterms {
			if f := d.stemFreq(w, bits[j].word, bits[j].bit); f > 0 {
				add(off+i, j, f)
			}
		}
	}
}

var _ meetingctx.TurnTerms = Terms(nil)

// TurnSet is a meetingctx.TurnTerms over the turns of several indexes,
// then loose indexed turns, numbered in the order they were added. An
// index's turns are counted from its inverted index of stems, so a query
// reads only the turns that have its terms.
type TurnSet struct {
	parts []setPart
	n     int
}

type setPart struct {
	x     *TurnIndex // nil for loose turns
	loose []*Indexed
	off   int
}

// AddIndex appends x's turns.
func (s *TurnSet) AddIndex(x *TurnIndex) {
	s.parts = append(s.parts, setPart{x: x, off: s.n})
	s.n += len(x.Docs)
}

// AddTurns appends indexed turns.
func (s *TurnSet) AddTurns(docs []*Indexed) {
	s.parts = append(s.parts, setPart{loose: docs, off: s.n})
	s.n += len(docs)
}

// Len is the number of turns.
func (s *TurnSet) Len() int { return s.n }

// Terms is the number of search terms of turn i.
func (s *TurnSet) Terms(i int) int {
	k := sort.Search(len(s.parts), func(k int) bool { return s.parts[k].off > i }) - 1
	p := s.parts[k]
	if p.x != nil {
		return p.x.Docs[i-p.off].nterms
	}
	return p.loose[i-p.off].nterms
}

// Count calls add(i, j, n) for each turn i with n > 0 occurrences of the
// stemmed term qterms[j].
func (s *TurnSet) Count(qterms []string, add func(i, j, n int)) {
	var bits []termBitOf
	for _, p := range s.parts {
		if p.x == nil {
			if bits == nil {
				bits = termBits(qterms)
			}
			countTurns(p.loose, p.off, qterms, bits, add)
			continue
		}
		for j, w := range qterms {
			for _, ps := range p.x.stemPostings[w] {
				add(p.off+int(ps.doc), j, int(ps.freq))
			}
		}
	}
}

var _ meetingctx.TurnTerms = (*TurnSet)(nil)

// freq is how often term occurs in the turn; word and bit are
// termBit(term), computed once per query.
func (d *Indexed) freq(term string, word int, bit uint64) int {
	return count(d.Terms, d.Freqs, d.sig, term, word, bit)
}

// stemFreq is freq for a stemmed term among the turn's Stems.
func (d *Indexed) stemFreq(stem string, word int, bit uint64) int {
	return count(d.Stems, d.StemFreqs, d.stemSig, stem, word, bit)
}

// count is the frequency of term among sorted terms with their counts and
// signature.
func count(terms []string, freqs []int32, sig termSig, term string, word int, bit uint64) int {
	if sig[word]&bit == 0 {
		return 0
	}
	if i, ok := slices.BinarySearch(terms, term); ok {
		return int(freqs[i])
	}
	return 0
}

// TurnIndex is indexed turns with an inverted index of their terms, for
// scoring many queries against the same turns.
type TurnIndex struct {
	Docs     []Indexed
	postings map[string][]posting
	// stemPostings is the same for the turns' Stems (turn search); it is
	// postings unless ownStems (stemming changed a term).
	stemPostings map[string][]posting
	ownStems     bool
	words        int
}

type posting struct {
	doc  int32
	freq int32
}

// NewTurnIndex indexes turns.
func NewTurnIndex(turns []meetingctx.Turn) *TurnIndex {
	x := &TurnIndex{Docs: Index(turns), postings: map[string][]posting{}}
	for i, d := range x.Docs {
		x.words += d.Words
		for j, w := range d.Terms {
			x.postings[w] = append(x.postings[w], posting{doc: int32(i), freq: d.Freqs[j]})
		}
		x.ownStems = x.ownStems || d.OwnStems()
	}
	x.stemPostings = x.postings
	if x.ownStems {
		x.stemPostings = map[string][]posting{}
		for i, d := range x.Docs {
			for j, w := range d.Stems {
				x.stemPostings[w] = append(x.stemPostings[w], posting{doc: int32(i), freq: d.StemFreqs[j]})
			}
		}
	}
	return x
}

// OwnStems reports whether the turn keeps Stems of its own, apart from
// its Terms (stemming changed one of them).
func (d *Indexed) OwnStems() bool {
	return len(d.Stems) > 0 && &d.Stems[0] != &d.Terms[0]
}

// StemPostings is the number of entries of x's inverted index of stems
// that are its own (0 when it is the index of terms).
func (x *TurnIndex) StemPostings() int {
	if !x.ownStems {
		return 0
	}
	n := 0
	for _, d := range x.Docs {
		n += len(d.Stems)
	}
	return n
}

// Score is ScoreIndexed(x.Docs, query), reading only the turns that
// share a term with the query.
func (x *TurnIndex) Score(query string) []float64 {
	out := make([]float64, len(x.Docs))
	if len(x.Docs) == 0 {
		return out
	}
	n, avg := len(x.Docs), float64(x.words)/float64(len(x.Docs))
	for _, w := range queryTerms(query) {
		ps := x.postings[w]
		for _, p := range ps {
			out[p.doc] += textutil.BM25(int(p.freq), len(ps), n, float64(x.Docs[p.doc].Words), avg)
		}
	}
	return out
}

// Ranked returns the indexes of x.Docs best match first for the query;
// ties, and the turns that do not match at all, in meeting order.
func (x *TurnIndex) Ranked(query string) []int {
	scores := x.Score(query)
	order := make([]int, 0, len(scores))
	for i, s := range scores {
		if s > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	for i, s := range scores {
		if s <= 0 {
			order = append(order, i)
		}
	}
	return order
}

// ScoreIndexed is Score over indexed turns.
func ScoreIndexed(docs []Indexed, query string) []float64 {
	return score(len(docs), query, func(i int) (*meetingctx.Turn, *Indexed) { return &docs[i].Turn, &docs[i] })
}

// score computes BM25 over n turns; doc returns a turn and, when known,
// its index entry.
func score(n int, query string, doc func(int) (*meetingctx.Turn, *Indexed)) []float64 {
	q := queryTerms(query)
	out := make([]float64, n)
	if len(q) == 0 || n == 0 {
		return out
	}
	// tf[i*len(q)+j] is how often query term j occurs in turn i.
	tf := make([]int32, n*len(q))
	df := make([]int, len(q))
	total := 0
	var buf []string
	var lower []byte
	type sigBit struct {
		word int
		bit  uint64
	}
	qs := make([]sigBit, len(q))
	for j, w := range q {
		qs[j].word, qs[j].bit = termBit(w)
	}
	// What a turn with a query term has in its lowercased text: the term,
	// or one of its Hangul spellings ("테스트" for "test").
	var qb [][]byte
	for _, w := range textutil.WithSpellings(slices.Clone(q)) {
		qb = append(qb, []byte(w))
	}
	for i := range n {
		t, d := doc(i)
		row := tf[i*len(q) : (i+1)*len(q)]
		if d != nil {
			total += d.Words
			for j, w := range q {
				row[j] = int32(d.freq(w, qs[j].word, qs[j].bit))
			}
		} else {
			total += wordCount(t.Text)
			lower = appendLower(lower[:0], t.Text)
			if !containsAny(lower, qb) {
				continue
			}
			buf = textutil.Terms(buf[:0], t.Text)
			for _, w := range buf {
				if j := slices.Index(q, w); j >= 0 {
					row[j]++
				}
			}
		}
		for j := range q {
			if row[j] > 0 {
				df[j]++
			}
		}
	}
	avg := float64(total) / float64(n)
	for i := range n {
		row := tf[i*len(q) : (i+1)*len(q)]
		var words int
		for j, f := range row {
			if f == 0 {
				continue
			}
			if words == 0 {
				if t, d := doc(i); d != nil {
					words = d.Words
				} else {
					words = wordCount(t.Text)
				}
			}
			out[i] += textutil.BM25(int(f), df[j], n, float64(words), avg)
		}
	}
	return out
}

// queryTerms returns the query's distinct search terms.
func queryTerms(query string) []string {
	q := textutil.Terms(nil, query)
	slices.Sort(q)
	return slices.Compact(q)
}

func containsAny(text []byte, terms [][]byte) bool {
	for _, w := range terms {
		if bytes.Contains(text, w) {
			return true
		}
	}
	return false
}

// appendLower appends strings.ToLower(s) to dst: each rune mapped by
// unicode.ToLower, so a lowercased word of s is a substring of it.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += size
	}
	return dst
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
func (a Chat) Answer(ctx context.Context, c Context, _ askmode.Mode, query string, onToken func(string) error) (Answer, error) {
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

// citeRE matches a citation marker as models write them: [3], [3, 4],
// [3-5] and [3–5] (ranges), [#3], [^3], [turn 3], [턴 3], and the
// full-width ［3］ and 【3】.
var citeRE = regexp.MustCompile(`[\[［【]\s*(?:[#^]|(?i:turns?)\s*|턴\s*)?\d{1,6}(?:\s*(?:[,，、]|[-–—~])\s*#?\d{1,6})*\s*[\]］】]`)

// citePartRE reads the numbers of a marker and the separator before each.
var citePartRE = regexp.MustCompile(`([-–—~])?\s*#?(\d{1,6})`)

// maxCiteRange bounds how many turns a range marker such as [3-9] names.
const maxCiteRange = 20

// CitationsIn returns the citations for the markers in text (see citeRE)
// that name a turn of c, once each, in order of first mention. A range
// names every turn in it, up to maxCiteRange turns.
func CitationsIn(text string, c Context) []Citation {
	out := []Citation{}
	seen := map[int]bool{}
	add := func(n int) {
		if n < 1 || n > len(c.Turns) || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, CitationOf(n, *c.Turns[n-1]))
	}
	for _, m := range citeRE.FindAllString(text, -1) {
		prev := 0
		for _, p := range citePartRE.FindAllStringSubmatch(m, -1) {
			n, _ := strconv.Atoi(p[2])
			if p[1] != "" && prev > 0 && n > prev && n-prev < maxCiteRange {
				for k := prev + 1; k <= n; k++ {
					add(k)
				}
			} else {
				add(n)
			}
			prev = n
		}
	}
	return out
}
