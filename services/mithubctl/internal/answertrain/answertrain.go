// Package answertrain learns the local provider's extractive answer model
// (answer.AnswerModel) from QMSum meetings. For each specific query with
// relevant spans it builds the context an ask would have once the meeting
// ended (the 40 best turns of turn search with the shipped weights, and
// the last 25 turns), extracts the candidate sentences and their features
// exactly as the answerer does, and labels each sentence with its ROUGE-1
// precision against the reference answer (the share of its tokens, as
// ROUGE tokenises and stems them, that the reference has), centred on
// the query's mean and scaled into [0, 1]. Of the labels tried on 40
// train meetings, ROUGE-1 precision ranks best when used as the score
// itself (R-1 29.9 at 50 words, against 25.4 for the share of content
// words in the reference times membership of a relevant span, 23.7 for
// membership alone); a 1/0 label for each query's top fifth fitted worse,
// and centring gained 0.2 R-1 on train.
//
// One feature is itself learned: the token prior (answer.FPrior), per
// token the share of its occurrences in candidate sentences that the
// reference answer also had, for tokens in the candidates of at least a
// fifth of the meetings and of every corpus (AMI, ICSI, committees: a
// token of one corpus carries its subject, not how answers are written),
// smoothed towards the share over all tokens. So that the regression sees
// it as it would on meetings it has not read, each query's sentences get
// the prior learned on the other series of meetings (four folds; an AMI
// series, ICSI's Bed/Bmr/Bro and each committee meeting are one series),
// and the shipped model the prior of all of them. On QMSum train, with
// the earlier weights, adding the out-of-fold prior to the score raised
// R-1 from 27.7 to 29.8.
//
// A logistic regression is fitted to these soft labels by full-batch
// gradient descent (fixed steps, L2), then the MMR λ and the target
// lengths of summary requests and of other questions are chosen by grid
// search on the mean ROUGE-1 F1 of the whole answers against the
// reference answers; the weights are refined by coordinate ascent on that
// same mean (Ascend), and λ and the lengths chosen again. Same meetings
// in, same model out: meetings are read in name order and every step is
// deterministic.
package answertrain

import (
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/rouge"
	"github.com/mithub/mithub/services/mithubctl/internal/turntrain"
)

// Context sizes of a simulated ask (see asking: askTurnHits, L0).
const (
	searchHits  = 40
	recentTurns = 25
	// DefaultTurns is AnswerModel.Turns unless Options.Turns says otherwise.
	DefaultTurns = 20
	// DefaultRounds of Ascend.
	DefaultRounds = 3
)

// Query is one specific query's context and candidates.
type Query struct {
	// Meeting names the meeting, Series its series (the cross-fit folds).
	Meeting, Series string
	Query           string
	Reference       string
	// Spans are the annotated relevant turns (by seq).
	Spans   []qmsum.Span
	Summary bool
	Ctx     answer.Context
	Cands   []answer.Sentence
	Labels  []float64
}

// Options shape a run.
type Options struct {
	// Limit caps the meetings read (0: all).
	Limit int
	// Steps of gradient descent (default 3000).
	Steps int
	// Turns is the model's candidate turns (default DefaultTurns).
	Turns int
	// Rounds of Ascend (0: DefaultRounds; negative: none).
	Rounds int
	// Progress gets one line per meeting and per tuning step (nil: none).
	Progress io.Writer
	// CiteWeight is what the tuning values an answer citing a relevant
	// turn at, in R-1 points per percentage point of answers (see
	// Objective).
	CiteWeight float64
}

// Objective is what tuning maximises: mean R-1 plus citeWeight R-1
// points for each percentage point of answers citing a relevant turn.
func Objective(e Eval, citeWeight float64) float64 { return e.R1 + citeWeight*100*e.Cites }

// Load reads every meeting of dir and returns its specific queries'
// candidates and labels.
func Load(dir string, o Options) ([]Query, error) {
	files, err := qmsum.MeetingFiles(dir)
	if err != nil {
		return nil, err
	}
	if o.Limit > 0 && len(files) > o.Limit {
		files = files[:o.Limit]
	}
	base := answer.DefaultAnswerModel
	base.Turns = o.turns()
	var out []Query
	for _, f := range files {
		m, err := qmsum.Load(f)
		if err != nil {
			return nil, err
		}
		qs := meetingQueries(m, base)
		for i := range qs {
			qs[i].Meeting, qs[i].Series = m.Name, SeriesOf(m.Name)
		}
		out = append(out, qs...)
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%-12s %4d turns %3d queries\n", m.Name, len(m.Turns), len(qs))
		}
	}
	CrossFitPrior(out)
	return out, nil
}

// SeriesOf is the series of a QMSum meeting: an AMI series (ES2002 of
// ES2002a), ICSI's kinds (Bed, Bmr, Bro, ...), else the meeting itself.
func SeriesOf(name string) string {
	switch corpusOf(name) {
	case "ami":
		if len(name) >= 6 {
			return name[:6]
		}
	case "icsi":
		if len(name) >= 3 {
			return name[:3]
		}
	}
	return name
}

// corpusOf is the corpus of a QMSum meeting: AMI (ES, IS, TS), ICSI (B…)
// or the committee meetings.
func corpusOf(name string) string {
	switch {
	case strings.HasPrefix(name, "ES") || strings.HasPrefix(name, "IS") || strings.HasPrefix(name, "TS"):
		return "ami"
	case strings.HasPrefix(name, "B"):
		return "icsi"
	}
	return "committee"
}

// Parameters of the token prior.
const (
	priorFolds = 4
	// priorMeetingShare: a token is in the prior when the candidates of at
	// least this share of the meetings have it.
	priorMeetingShare = 0.2
	// priorSmoothing is the weight, in occurrences, of the default.
	priorSmoothing = 20
)

// LearnPrior learns the token prior from the queries' candidates and
// references (see the package comment).
func LearnPrior(qs []Query) *answer.TokenPrior {
	hit, n, df := map[string]int{}, map[string]int{}, map[string]int{}
	seen := map[string]map[string]bool{}
	kinds := map[string]map[string]bool{} // token → corpora whose candidates have it
	allHit, allN := 0, 0
	for _, q := range qs {
		ref := map[string]bool{}
		for _, x := range rouge.Tokens(q.Reference) {
			ref[x] = true
		}
		in := seen[q.Meeting]
		if in == nil {
			in = map[string]bool{}
			seen[q.Meeting] = in
		}
		for _, s := range q.Cands {
			for _, x := range rouge.Tokens(s.Text) {
				n[x]++
				allN++
				if ref[x] {
					hit[x]++
					allHit++
				}
				if !in[x] {
					in[x] = true
					df[x]++
				}
				if kinds[x] == nil {
					kinds[x] = map[string]bool{}
				}
				kinds[x][corpusOf(q.Meeting)] = true
			}
		}
	}
	p := &answer.TokenPrior{Default: 0.5, Tokens: map[string]float64{}}
	if allN == 0 {
		return p
	}
	p0 := float64(allHit) / float64(allN)
	p.Default = round(p0)
	minDF := int(math.Ceil(priorMeetingShare * float64(len(seen))))
	corpora := map[string]bool{}
	for m := range seen {
		corpora[corpusOf(m)] = true
	}
	for x, c := range n {
		if df[x] >= minDF && len(kinds[x]) == len(corpora) {
			p.Tokens[x] = round((float64(hit[x]) + priorSmoothing*p0) / (float64(c) + priorSmoothing))
		}
	}
	return p
}

// CrossFitPrior sets each candidate's FPrior from the prior learned on
// the queries of the other folds (folds by series).
func CrossFitPrior(qs []Query) {
	fold := func(q Query) int {
		h := fnv.New32a()
		h.Write([]byte(q.Series))
		return int(h.Sum32() % priorFolds)
	}
	for k := range priorFolds {
		var rest []Query
		for _, q := range qs {
			if fold(q) != k {
				rest = append(rest, q)
			}
		}
		p := LearnPrior(rest)
		for _, q := range qs {
			if fold(q) != k {
				continue
			}
			for i := range q.Cands {
				q.Cands[i].F[answer.FPrior] = p.Sentence(q.Cands[i].Text)
			}
		}
	}
}

func meetingQueries(m *qmsum.Meeting, model answer.AnswerModel) []Query {
	turns := turntrain.MeetingTurns(m)
	var out []Query
	for _, q := range m.SpecificQueries {
		if len(q.Spans) == 0 || len(turns) == 0 {
			continue
		}
		hits := meetingctx.RankTurns(meetingctx.TurnQuery{Query: q.Query, Turns: turns}, meetingctx.DefaultTurnWeights, searchHits)
		rank := map[int]int{}
		for i, h := range hits {
			rank[h.Seq] = i + 1
		}
		for s := max(0, len(turns)-recentTurns); s < len(turns); s++ {
			if _, ok := rank[s]; !ok {
				rank[s] = 0
			}
		}
		seqs := make([]int, 0, len(rank))
		for s := range rank {
			seqs = append(seqs, s)
		}
		slices.Sort(seqs)
		ptrs := make([]*meetingctx.Turn, len(seqs))
		ranks := make([]int, len(seqs))
		for i, s := range seqs {
			ptrs[i], ranks[i] = &turns[s], rank[s]
		}
		c := answer.NewContext(ptrs, ranks)
		cands := model.Candidates(c, q.Query)
		refToks := rouge.Tokens(q.Answer)
		labels := make([]float64, len(cands))
		for i, s := range cands {
			labels[i] = rouge.CompareTokens(refToks, rouge.Tokens(s.Text)).R1.Precision
		}
		// Centred on the query's mean and scaled into [0, 1]: the model
		// learns which sentences of a query are better, not which queries
		// are easier.
		if len(labels) > 0 {
			mean, dev := 0.0, 0.0
			for _, l := range labels {
				mean += l
			}
			mean /= float64(len(labels))
			for _, l := range labels {
				dev = max(dev, math.Abs(l-mean))
			}
			for i := range labels {
				if dev > 0 {
					labels[i] = 0.5 + (labels[i]-mean)/(2*dev)
				}
			}
		}
		out = append(out, Query{Query: q.Query, Reference: q.Answer, Spans: q.Spans, Summary: answer.IsSummaryRequest(q.Query), Ctx: c, Cands: cands, Labels: labels})
	}
	return out
}

// stop are English function words left out of the labels' word overlap.
var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but so of to in on at for with by from as is are was were be been
		it i you he she we they this that these those there here what which who whom how why when where do did doe
		not no yes yeah ok okay just like well um uh s t m ll re ve d have ha had can could would should will shall
		may might must me my our your their them us him her his its if then than about into out up down over all
		some ani one thing think know mean realli right gonna wanna get got go thi veri onli also`) {
		stop[w] = true
	}
}

func content(toks []string) []string {
	out := toks[:0:0]
	for _, t := range toks {
		if !stop[t] {
			out = append(out, t)
		}
	}
	return out
}

func contentSet(toks []string) map[string]bool {
	m := map[string]bool{}
	for _, t := range content(toks) {
		m[t] = true
	}
	return m
}

// Fit fits the logistic regression to the queries' soft labels: steps of
// full-batch gradient descent from zero, learning rate 1, L2 1e-4.
func Fit(qs []Query, steps int) (w [answer.NumFeatures]float64, bias float64) {
	const lr, l2 = 1.0, 1e-4
	n := 0
	for _, q := range qs {
		n += len(q.Cands)
	}
	if n == 0 {
		return w, 0
	}
	for range steps {
		var g [answer.NumFeatures]float64
		gb := 0.0
		for _, q := range qs {
			for i, s := range q.Cands {
				z := bias
				for k := range w {
					z += w[k] * s.F[k]
				}
				d := 1/(1+math.Exp(-z)) - q.Labels[i]
				gb += d
				for k := range w {
					g[k] += d * s.F[k]
				}
			}
		}
		for k := range w {
			w[k] -= lr * (g[k]/float64(n) + l2*w[k])
		}
		bias -= lr * gb / float64(n)
	}
	return w, bias
}

// AnswerText is an answer's points as ROUGE scores them (eval.ScoredText
// of the answer): each line's "speaker: sentences", joined.
func AnswerText(c answer.Context, ps []answer.Point) string {
	var parts []string
	for _, line := range answer.Bullets(ps) {
		parts = append(parts, line[0].Speaker+":")
		for _, p := range line {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, " ")
}

// Eval is the mean ROUGE F1 (×100) of the model's answers to qs, split by
// kind, and over all.
type Eval struct {
	R1, R2, RL float64
	// Cites is the share of answers citing a turn in a relevant span.
	Cites                float64
	SummaryR1, OtherR1   float64
	Summaries, Questions int
	Words                float64
}

// Evaluate answers every query with m within [minW, maxW] words.
func Evaluate(qs []Query, m answer.AnswerModel, minW, maxW int) Eval {
	var e Eval
	for _, q := range qs {
		cands := slices.Clone(q.Cands)
		for i := range cands {
			cands[i].Score = m.Score(cands[i].F)
		}
		ps := answer.Points(q.Ctx, m.Select(cands, m.Target(q.Query, minW, maxW), maxW))
		text := AnswerText(q.Ctx, ps)
		if citesSpan(q, ps) {
			e.Cites++
		}
		s := rouge.Compare(q.Reference, text)
		e.R1 += s.R1.F1
		e.R2 += s.R2.F1
		e.RL += s.RL.F1
		e.Words += float64(len(strings.Fields(text)))
		if q.Summary {
			e.Summaries++
			e.SummaryR1 += s.R1.F1
		} else {
			e.Questions++
			e.OtherR1 += s.R1.F1
		}
	}
	if n := float64(len(qs)); n > 0 {
		e.R1, e.R2, e.RL, e.Words, e.Cites = 100*e.R1/n, 100*e.R2/n, 100*e.RL/n, e.Words/n, e.Cites/n
	}
	if e.Summaries > 0 {
		e.SummaryR1 = 100 * e.SummaryR1 / float64(e.Summaries)
	}
	if e.Questions > 0 {
		e.OtherR1 = 100 * e.OtherR1 / float64(e.Questions)
	}
	return e
}

// citesSpan reports whether a point of the answer is a turn of a
// relevant span (spans are inclusive, by seq).
func citesSpan(q Query, ps []answer.Point) bool {
	for _, p := range ps {
		seq := q.Ctx.Turns[p.Turn].Seq
		for _, sp := range q.Spans {
			if seq >= sp.Start && seq <= sp.End {
				return true
			}
		}
	}
	return false
}

// SameTurnPenalty is the shipped answer.AnswerModel.SameTurnPenalty: a
// rule, not tuned on ROUGE (which alone would pick 0). On QMSum train,
// with λ and the lengths of the model learned without it, it took the
// share of answers citing a relevant turn from 62.4% to 66.7% and R-1
// from 29.51 to 29.32; any penalty from 0.1 to 1 gave the same.
const SameTurnPenalty = 0.1

// Grids of the tuning.
var (
	Lambdas = []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1}
	Words   = []int{40, 50, 60, 70, 80, 90}
)

// Train fits the model and tunes λ and the target lengths within the
// default bounds.
func Train(qs []Query, o Options) answer.AnswerModel {
	steps := o.Steps
	if steps <= 0 {
		steps = 3000
	}
	w, b := Fit(qs, steps)
	m := answer.AnswerModel{Features: answer.FeatureNames[:], Weights: make([]float64, answer.NumFeatures), Bias: round(b), Turns: o.turns(),
		SameTurnPenalty: SameTurnPenalty, Prior: LearnPrior(qs)}
	for k := range w {
		m.Weights[k] = round(w[k])
	}
	m = tuneSelection(qs, m, o.CiteWeight, o.Progress)
	rounds := o.Rounds
	if rounds == 0 {
		rounds = DefaultRounds
	}
	if rounds > 0 {
		m = AscendWith(qs, m, rounds, o.CiteWeight, o.Progress)
		m = tuneSelection(qs, m, o.CiteWeight, o.Progress)
	}
	return m
}

// tuneSelection chooses λ and the target lengths by grid search.
func tuneSelection(qs []Query, m answer.AnswerModel, citeWeight float64, progress io.Writer) answer.AnswerModel {
	minW, maxW := answer.DefaultMinWords, answer.DefaultMaxWords
	best := math.Inf(-1)
	for _, l := range Lambdas {
		// The target of each kind only changes that kind's answers: tune
		// them apart.
		x := m
		x.Lambda = l
		bestS, bestQ, sumS, sumQ := 0, 0, math.Inf(-1), math.Inf(-1)
		for _, words := range Words {
			x.SummaryWords, x.QuestionWords = words, words
			e := Evaluate(qs, x, minW, maxW)
			if e.SummaryR1 > sumS {
				bestS, sumS = words, e.SummaryR1
			}
			if e.OtherR1 > sumQ {
				bestQ, sumQ = words, e.OtherR1
			}
		}
		x.SummaryWords, x.QuestionWords = bestS, bestQ
		e := Evaluate(qs, x, minW, maxW)
		if progress != nil {
			fmt.Fprintf(progress, "λ %.1f  summary %d words, questions %d words: R-1 %.2f R-2 %.2f R-L %.2f (%.1f words), %.1f%% cite a relevant turn\n",
				l, bestS, bestQ, e.R1, e.R2, e.RL, e.Words, 100*e.Cites)
		}
		if o := Objective(e, citeWeight); o > best {
			best, m.Lambda, m.SummaryWords, m.QuestionWords = o, l, bestS, bestQ
		}
	}
	return m
}

// AscentSteps are the changes to one weight that Ascend tries, in order.
var AscentSteps = []float64{0.4, -0.4, 0.15, -0.15}

// Ascend refines the regression's weights for what it is used for, the
// ROUGE-1 of whole answers (the regression fits single sentences' labels):
// coordinate ascent from m, each round trying AscentSteps on each weight in
// turn and keeping a change that raises the mean R-1 by more than 0.01,
// until a round changes nothing or after rounds rounds. On QMSum train,
// tuned on three folds of series and scored on the fourth, it raised
// held-out R-1 in each fold, 29.32 to 29.74 overall.
func Ascend(qs []Query, m answer.AnswerModel, rounds int, progress io.Writer) answer.AnswerModel {
	return AscendWith(qs, m, rounds, 0, progress)
}

// AscendWith is Ascend maximising Objective with citeWeight.
func AscendWith(qs []Query, m answer.AnswerModel, rounds int, citeWeight float64, progress io.Writer) answer.AnswerModel {
	minW, maxW := answer.DefaultMinWords, answer.DefaultMaxWords
	best := Objective(Evaluate(qs, m, minW, maxW), citeWeight)
	for r := range rounds {
		changed := false
		for k := range m.Weights {
			for _, d := range AscentSteps {
				x := m
				x.Weights = slices.Clone(m.Weights)
				x.Weights[k] = round(x.Weights[k] + d)
				if e := Objective(Evaluate(qs, x, minW, maxW), citeWeight); e > best+0.01 {
					best, m, changed = e, x, true
				}
			}
		}
		if progress != nil {
			fmt.Fprintf(progress, "ascent round %d: objective %.2f\n", r+1, best)
		}
		if !changed {
			break
		}
	}
	return m
}

func (o Options) turns() int {
	if o.Turns > 0 {
		return o.Turns
	}
	return DefaultTurns
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }
