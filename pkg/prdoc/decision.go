package prdoc

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
)

// Decision candidates and their scorer. A sentence is a candidate when it
// settles something by the rules: a decision cue ("we decided", "let's go
// with", "결정했", "하기로"), an agreement that answers another speaker's
// proposal ("yeah, let's do that" after "why don't we …"), or a proposal
// another speaker agrees to in the next turns; not a request to someone,
// moving the meeting along or taking a task on, which an "OK" answers
// without settling anything. Candidates are ranked by a
// logistic-regression model over cue features, learned from the QMSum
// train split (mithub-lab train-decisions; make train-decisions).

var (
	strongDecisionCues = compile(
		`\b(we|we've|we have|i think we)\s+(all\s+)?(have\s+)?(decided|agreed|settled)\b`,
		`\bdecided\s+(to|that|on)\b`,
		`\b(the\s+)?(final\s+)?decision\s+(is|was|will be)\b`,
		`\bwe\s+(all\s+)?agree\b`,
		`\b(it's|that's|it is|that is)\s+(decided|settled|agreed|final)\b`,
		`\b(consensus|unanimous)\b`,
		`\bwe\s+(chose|picked|opted)\b`,
		// The Korean nouns count in a settled form only: "결정했다",
		// "결정은 …", not "결정하는 경향" (tends to decide).
		`결정(했|됐|되었|하죠|합시다|하자|하기로|입니다|이에요|이야|한 대로|은|을 내렸)`,
		`확정(했|됐|되었|하죠|합시다|하자|입니다|이에요|이야|으로)`,
		`합의(했|됐|되었|하죠|합시다|한 대로|를 봤|가 됐)`,
		`채택(했|됐|되었|하죠|합시다|하자)`,
		`결론(은|적으로|을 내|이 났|냈|났)`,
		`하기로\s*(했|하|합|결정|정했|해요|하죠|하자)`,
		`기로\s*(했|합의|정했|결정)`,
	)
	goWithCues = compile(
		`\b(let's|let us|we'll|we will|we should|we're going to|we are going to)\s+go\s+(with|for)\b`,
		`\bso\s+(we'll|we will|we're going to)\s+(use|go|do|have|keep|make|stick|take|choose)\b`,
		`\b(we're|we are)\s+going\s+to\s+(use|stick with|keep|choose|take)\b`,
		`\blet's\s+(use|stick with|keep|choose|take)\b`,
		`(으로|로)\s*(하죠|합시다|하자|가죠|갑시다|가자|정했|정하죠|정합시다|결정)`,
		`그렇게\s*(하죠|합시다|하자|가죠|갑시다|진행하)`,
	)
	// An agreement opens the sentence; a proposal may stand anywhere.
	// (Go's \b is ASCII-only: the Korean forms go without it.)
	agreementRE = regexp.MustCompile(`^((yeah|yes|yep|okay|ok|right|sure|agreed|fine|sounds good|good|great|perfect|absolutely|exactly|definitely|let's do (it|that)|i agree|that's (fine|good|great|right))\b|좋아요|좋습니다|좋네요|(네|예)` + hangulEnd + `|그래요|그렇게 하죠|동의|찬성|알겠습니다)`)
	// A firm agreement says more than "yeah" or "okay", which in a
	// meeting often only acknowledge; asksAgreementRE a turn that asks
	// for one.
	firmAgreementRE = regexp.MustCompile(`^((yeah|yes|yep|okay|ok|right|네|예)[,.!]?\s+)?((agreed|sounds good|that sounds good|let's do (it|that)|i agree|(that's|that is) fine|fine with me|perfect|good idea|great idea|absolutely|definitely)\b|좋습니다|좋아요|좋네요|그렇게 하죠|그렇게 합시다|동의|찬성)`)
	asksAgreementRE = regexp.MustCompile(`\b(agreed|ok|okay|all right|alright|right|yes)\s*\?|괜찮(죠|을까요|나요|겠죠)|어때요|어떠세요|동의하(시|세)|좋죠\s*\?`)
	proposalCues    = compile(
		`\b(we should|we could|shall we|should we|how about|what about|why don't we|let's|i suggest|i propose|i'd suggest|maybe we|we might|we can)\b`,
		`(하면|는\s?게|게)\s*(어떨까|좋겠|어때)`, `(합시다|하죠|하자|할까요|제안)`,
	)
	weModalRE = regexp.MustCompile(`\b(we'll|we will|we're going to|we are going to|we're gonna|we should|we need to|we have to|we can|we want)\b|(우리|저희).*(하면|해야|하죠|합시다|할)`)
	summaryRE = regexp.MustCompile(`^(so|okay so|ok so|alright so|all right so|then|so then)\b|^(그럼|그러면|그래서|결국)|\b(final|finally|in the end|conclusion|to sum up|overall)\b|최종|정리하면`)
	// A request to someone ("David, can you walk us through it?",
	// "상황 설명 부탁해요") is answered with "OK" without settling
	// anything.
	requestRE = regexp.MustCompile(`\b(can|could|would|will) you\b|\bplease\b|부탁|주세요|해\s?줘|주실|주시겠`)
	// Moving the meeting along ("let's move on to the budget", "그럼 그
	// 얘기로 넘어가죠") settles nothing about the subject.
	procedureRE = regexp.MustCompile(`\b(move|moving|go|going)\s+on\b|\bnext\s+(item|topic|point|agenda)\b|\blet's\s+(start|begin|get started|wrap up)\b|넘어가|넘어갈|다음\s*(안건|주제|순서|항목)|시작하죠|시작합시다`)
	// Taking on a task ("네, 금요일까지 머지할게요", "I'll send it
	// tomorrow") is an action item, not a decision, even as the answer
	// to a proposal.
	commitRE   = regexp.MustCompile(`\b(i'll|i will|i'm going to|i am going to|i can)\b|(할게요|할께요|하겠습니다|드릴게요|드리겠습니다|볼게요|보겠습니다)`)
	hedgeRE    = regexp.MustCompile(`\b(maybe|probably|might|perhaps|i don't know|not sure|i guess|possibly)\b|아마|글쎄|모르겠`)
	featureSet = []string{"bias", "strong_cue", "go_with_cue", "agrees_to_proposal", "proposal", "agreed_to", "proposal_agreed", "we_modal", "summary", "hedge", "terms"}
)

// DecisionFeatureNames names the features DecisionFeatures returns, in
// order.
func DecisionFeatureNames() []string { return append([]string(nil), featureSet...) }

// decisionFeatures are the features of sentence s of turns[i]; prev is the
// turn before turns[i] (nil for the first), the turns after i are the
// replies to a proposal.
func decisionFeatures(s sentence, prev *Turn, turns []Turn, i int) (f []float64, candidate bool) {
	b := func(ok bool) float64 {
		if ok {
			return 1
		}
		return 0
	}
	cur := turns[i].Speaker
	strong := anyMatch(strongDecisionCues, s.norm)
	goWith := anyMatch(goWithCues, s.norm)
	agrees := agreementRE.MatchString(s.norm) && prev != nil && prev.Speaker != cur && proposes(prev.Text)
	proposal := anyMatch(proposalCues, s.norm)
	weModal := weModalRE.MatchString(s.norm)
	hedge := hedgeRE.MatchString(s.norm)
	agreed := s.terms >= 3 && agreedTo(turns, i) && (strong || goWith || proposal || weModal || statementAgreed(turns, i))
	f = []float64{1, b(strong), b(goWith), b(agrees), b(proposal), b(agreed), b(proposal && agreed), b(weModal),
		b(summaryRE.MatchString(s.norm)), b(hedge), float64(min(s.terms, 20)) / 20}
	// A proposal may be a question ("why don't we …?") when another
	// speaker agrees to it.
	asks := s.isQuestion() && !(proposal && agreed)
	// A request, moving the meeting along or taking a task on settles
	// nothing unless it says so in a decision's words.
	settlesNothing := (requestRE.MatchString(s.norm) || procedureRE.MatchString(s.norm) || commitRE.MatchString(s.norm)) && !strong && !goWith
	// A hedge ("maybe", "I don't know", "probably") settles nothing
	// unless it says so in a decision's words.
	hedged := hedge && !strong && !goWith
	candidate = (strong || goWith || agrees || proposal || weModal || agreed) && !asks && !settlesNothing && !hedged && !anyMatch(openCues, s.norm)
	return f, candidate
}

// statementAgreed reports whether the agreement to turns[i], a turn whose
// sentence has no proposal's words, settles it. An agreement to a turn
// that asks something answers the request, not a sentence of the turn;
// otherwise the agreement must be more than a "yeah" (meetings are full
// of those), or the turn must ask for it ("Then we move the launch to
// March 3. Agreed?").
func statementAgreed(turns []Turn, i int) bool {
	return !asksSomething(turns[i].Text) &&
		(asksAgreementRE.MatchString(strings.ToLower(turns[i].Text)) || replyOpens(turns, i, firmAgreementRE))
}

// asksSomething reports whether a turn makes a request or moves the
// meeting along: an "OK" after it answers that, not the turn's other
// sentences ("그 대시보드 저도 볼 수 있게 해 주세요. 출시 날 수치 물어보는
// 사람이 많아서." — "Sure.").
func asksSomething(text string) bool {
	for _, s := range sentences(text) {
		if requestRE.MatchString(s.norm) || procedureRE.MatchString(s.norm) {
			return true
		}
	}
	return false
}

// replyTurns is how many turns after a turn its reply is looked for in:
// the agreement to a proposal, the answer to a question in any words.
const replyTurns = 2

// proposes reports whether one of a turn's last two sentences proposes
// something (moving the meeting along is not a proposal).
func proposes(text string) bool {
	ss := sentences(text)
	for k := len(ss) - 1; k >= 0 && k >= len(ss)-2; k-- {
		if anyMatch(proposalCues, ss[k].norm) && !procedureRE.MatchString(ss[k].norm) {
			return true
		}
	}
	return false
}

// agreedTo reports whether the reply to turns[i], the first of the next
// replyTurns turns by another speaker, opens by agreeing.
func agreedTo(turns []Turn, i int) bool { return replyOpens(turns, i, agreementRE) }

// replyOpens reports whether the reply to turns[i] (replyTo) opens with a
// sentence re matches.
func replyOpens(turns []Turn, i int, re *regexp.Regexp) bool {
	j := replyTo(turns, i)
	if j < 0 {
		return false
	}
	ss := sentences(turns[j].Text)
	return len(ss) > 0 && re.MatchString(ss[0].norm)
}

// replyTo is the index of the reply to turns[i], the first of the next
// replyTurns turns by another speaker, or -1.
func replyTo(turns []Turn, i int) int {
	for j := i + 1; j < len(turns) && j <= i+replyTurns; j++ {
		if turns[j].Speaker != turns[i].Speaker {
			return j
		}
	}
	return -1
}

// DecisionModel is a logistic-regression scorer over the decision
// features.
type DecisionModel struct {
	Features []string  `json:"features"`
	Weights  []float64 `json:"weights"`
	// Trained says what the weights were learned from.
	Trained string `json:"trained,omitempty"`
}

// Score is the model's probability that a sentence with features f is a
// decision.
func (m DecisionModel) Score(f []float64) float64 {
	z := 0.0
	for k := range min(len(f), len(m.Weights)) {
		z += m.Weights[k] * f[k]
	}
	return 1 / (1 + math.Exp(-z))
}

//go:embed decision_model.json
var decisionModelJSON []byte

// DefaultDecisionModel is the model learned from the QMSum train split,
// embedded from decision_model.json.
func DefaultDecisionModel() DecisionModel {
	m, err := ParseDecisionModel(decisionModelJSON)
	if err != nil {
		panic(err) // the embedded file is checked by its test
	}
	return m
}

// ParseDecisionModel reads a model and checks that its features are the
// ones this package computes.
func ParseDecisionModel(data []byte) (DecisionModel, error) {
	var m DecisionModel
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("decision model: %w", err)
	}
	if strings.Join(m.Features, ",") != strings.Join(featureSet, ",") || len(m.Weights) != len(featureSet) {
		return m, fmt.Errorf("decision model: features %v, want %v", m.Features, featureSet)
	}
	return m, nil
}

// DecisionExample is one candidate sentence with its features, for
// training.
type DecisionExample struct {
	Seq      int
	Text     string
	Features []float64
}

// DecisionCandidates returns the decision candidates of a meeting's turns,
// as the local extractor sees them.
func DecisionCandidates(turns []Turn) []DecisionExample {
	var out []DecisionExample
	for i := range turns {
		var prev *Turn
		if i > 0 {
			prev = &turns[i-1]
		}
		for _, s := range sentences(turns[i].Text) {
			if !s.substantive() {
				continue
			}
			if f, ok := decisionFeatures(s, prev, turns, i); ok {
				out = append(out, DecisionExample{Seq: turns[i].Seq, Text: s.text, Features: f})
			}
		}
	}
	return out
}

// TrainDecisionModel fits logistic regression to examples labelled y by
// full-batch gradient descent with L2 regularisation (lambda), from zero
// weights, so the result depends on the data alone. Positives are
// weighted up to balance the classes.
func TrainDecisionModel(xs [][]float64, ys []bool, epochs int, rate, lambda float64) DecisionModel {
	w := make([]float64, len(featureSet))
	pos := 0
	for _, y := range ys {
		if y {
			pos++
		}
	}
	wPos := 1.0
	if pos > 0 && pos < len(ys) {
		wPos = float64(len(ys)-pos) / float64(pos)
	}
	m := DecisionModel{Features: DecisionFeatureNames(), Weights: w}
	grad := make([]float64, len(w))
	for range epochs {
		clear(grad)
		total := 0.0
		for n, x := range xs {
			p := m.Score(x)
			y, c := 0.0, 1.0
			if ys[n] {
				y, c = 1, wPos
			}
			for k := range w {
				grad[k] += c * (p - y) * x[k]
			}
			total += c
		}
		for k := range w {
			reg := lambda * w[k]
			if k == 0 {
				reg = 0
			}
			w[k] -= rate * (grad[k]/total + reg)
		}
	}
	return m
}
