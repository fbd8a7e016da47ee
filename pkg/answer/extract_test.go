package answer_test

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/answer"
	"github.com/mithub/mithub/pkg/askmode"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/rouge"
)

func fixture(rows [][2]string) []meetingctx.Turn {
	ts := make([]meetingctx.Turn, len(rows))
	for i, r := range rows {
		ts[i] = meetingctx.Turn{Seq: i, SpeakerID: strings.ToLower(r[0]), SpeakerName: r[0], Text: r[1],
			StartMS: int64(i) * 20_000, EndMS: int64(i)*20_000 + 15_000, Confidence: 0.95}
	}
	return ts
}

func citedSeqs(a answer.Answer) []int {
	var out []int
	for _, c := range a.Citations {
		out = append(out, c.Seq)
	}
	slices.Sort(out)
	return out
}

var lineCiteRE = regexp.MustCompile(`^- .+ \[\d+\]$`)

// checkShape: a lead line saying the answer is extracted, then points
// that each end with a citation.
func checkShape(t *testing.T, a answer.Answer, lead string) {
	t.Helper()
	lines := strings.Split(a.Text, "\n")
	if !strings.Contains(lines[0], lead) || !strings.HasSuffix(lines[0], ":") {
		t.Fatalf("lead line %q lacks %q", lines[0], lead)
	}
	for _, l := range lines[1:] {
		if !lineCiteRE.MatchString(l) {
			t.Fatalf("point without a citation: %q", l)
		}
	}
}

// A Korean meeting asked in Korean: the answer cites the turns about the
// deployment schedule, not the ones about lunch or the budget, and reads
// without fillers.
func TestExtractiveKoreanCitedTurns(t *testing.T) {
	turns := fixture([][2]string{
		{"김민수", "음 오늘은 점심 메뉴부터 정하죠. 김치찌개 어때요?"},
		{"이지은", "어 저는 좋아요. 근처 식당으로 가요."},
		{"박준호", "배포 일정은 다음 주 금요일로 잡았습니다. 배포 전에 QA를 목요일까지 끝내야 해요."},
		{"김민수", "그 그 배포 일정이 밀리면 고객 공지를 월요일에 다시 보내야 합니다."},
		{"이지은", "예산은 분기 말에 다시 검토하기로 해요."},
		{"박준호", "네 알겠습니다."},
	})
	c := answer.NewContext(ptrs(turns), []int{0, 0, 1, 2, 0, 0})
	ans, _ := collect(t, answer.Extractive{}, c, askmode.Answer, "배포 일정은 어떻게 정했나요?")
	checkShape(t, ans, "발췌")
	if got := citedSeqs(ans); !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("cited %v, want [2 3]:\n%s", got, ans.Text)
	}
	if strings.Contains(ans.Text, "그 그 ") || strings.Contains(ans.Text, "김치찌개") {
		t.Fatalf("answer not cleaned or off topic:\n%s", ans.Text)
	}
	// The stored turn stays verbatim; its citation carries it.
	for _, cit := range ans.Citations {
		if cit.Text != turns[cit.Seq].Text {
			t.Fatalf("citation text %q is not the stored turn %q", cit.Text, turns[cit.Seq].Text)
		}
	}
}

func ptrs(ts []meetingctx.Turn) []*meetingctx.Turn {
	out := make([]*meetingctx.Turn, len(ts))
	for i := range ts {
		out[i] = &ts[i]
	}
	return out
}

func TestExtractiveEnglishCleanBudgetOrder(t *testing.T) {
	turns := fixture([][2]string{
		{"Grad A", "So we {disfmarker} we bought two wireless microphones for the recording equipment . They arrive next week ."},
		{"Professor B", "Um , the budget meeting is on Monday ."},
		{"Grad C", "The the recording equipment needs a new mixer , and uh the old mixer is broken ."},
		{"Grad A", "We bought two wireless microphones for the recording equipment ."},
		{"PhD D", "Lunch is at noon ."},
	})
	c := answer.NewContext(ptrs(turns), []int{1, 0, 2, 3, 0})
	e := answer.Extractive{MinWords: 5, MaxWords: 30}
	ans, _ := collect(t, e, c, askmode.Answer, "What was said about the recording equipment?")
	checkShape(t, ans, "Extracted from the transcript")
	if strings.Contains(ans.Text, "{") || strings.Contains(ans.Text, "The the") || strings.Contains(ans.Text, " uh ") {
		t.Fatalf("transcription noise in the answer:\n%s", ans.Text)
	}
	body := strings.Join(strings.Split(ans.Text, "\n")[1:], " ")
	if n := len(strings.Fields(regexp.MustCompile(`\[\d+\]|- `).ReplaceAllString(body, ""))); n > 30+2*len(ans.Citations) {
		t.Fatalf("answer has %d words, budget 30:\n%s", n, ans.Text)
	}
	// The same sentence said twice is given once (MMR), and points are in
	// meeting order.
	if strings.Count(ans.Text, "bought two wireless microphones") != 1 {
		t.Fatalf("redundant sentence repeated or missing:\n%s", ans.Text)
	}
	if got := citedSeqs(ans); slices.Contains(got, 1) || slices.Contains(got, 4) {
		t.Fatalf("cited off-topic turns %v:\n%s", got, ans.Text)
	}
	var last int
	for _, cit := range ans.Citations {
		if cit.Seq < last {
			t.Fatalf("points not in meeting order: %v", citedSeqs(ans))
		}
		last = cit.Seq
	}
}

// "What did X say about Y" keeps to X's turns when X spoke about it.
func TestExtractiveSpeakerFilter(t *testing.T) {
	turns := fixture([][2]string{
		{"Kim", "The battery should be rechargeable because users hate replacing batteries."},
		{"Lee", "A rechargeable battery costs too much for our budget."},
		{"Kim", "I also think the battery charger can be sold separately."},
	})
	c := answer.NewContext(ptrs(turns), []int{1, 2, 3})
	ans, _ := collect(t, answer.Extractive{MinWords: 40, MaxWords: 90}, c, askmode.Answer, "What did Kim say about the battery?")
	if got := citedSeqs(ans); !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("cited %v, want Kim's turns [0 2]:\n%s", got, ans.Text)
	}
	ans, _ = collect(t, answer.Extractive{MinWords: 40, MaxWords: 90}, c, askmode.Answer, "What was said about the battery?")
	if got := citedSeqs(ans); !slices.Contains(got, 1) {
		t.Fatalf("without a speaker, Lee's turn should be cited too: %v", got)
	}
	// QMSum asks about "C" for the speaker "Professor C".
	turns = fixture([][2]string{
		{"Grad A", "The recording equipment needs new wireless microphones."},
		{"Professor C", "I think the recording equipment should wait until the budget is clear."},
	})
	c = answer.NewContext(ptrs(turns), []int{1, 2})
	ans, _ = collect(t, answer.Extractive{MinWords: 40, MaxWords: 90}, c, askmode.Answer, "What did C think about the recording equipment?")
	if got := citedSeqs(ans); !slices.Equal(got, []int{1}) {
		t.Fatalf("cited %v, want Professor C's turn [1]:\n%s", got, ans.Text)
	}
	// Any question about what a person did keeps to their turns, whatever
	// its verb; a summary keeps to them only when it asks for theirs.
	turns = fixture([][2]string{
		{"Grad E", "I can lend my eighteen gigabyte drive for the storage disks until the new ones arrive."},
		{"Grad A", "The storage disks arrived but nobody has installed the storage disks yet."},
		{"Marketing", "Users want the storage disks to hold a whole year of meetings."},
		{"User Interface", "The storage disks need a simple interface to browse the meetings."},
	})
	c = answer.NewContext(ptrs(turns), []int{1, 2, 3, 4})
	for _, tc := range []struct {
		query string
		want  []int // nil: more than one speaker's turns
	}{
		{"What did Grad E contribute to the discussion on storage disks?", []int{0}},
		{"Why did the Marketing think the storage disks should be bigger?", []int{2}},
		{"Summarize Marketing's opinions towards the storage disks.", []int{2}},
		{"Summarize the discussion about user interface of the storage disks.", nil},
		{"What did the group discuss about the storage disks?", nil},
	} {
		ans, _ = collect(t, answer.Extractive{MinWords: 40, MaxWords: 90}, c, askmode.Answer, tc.query)
		got := citedSeqs(ans)
		if tc.want != nil && !slices.Equal(got, tc.want) || tc.want == nil && len(got) < 2 {
			t.Errorf("%q: cited %v, want %v (nil: several speakers):\n%s", tc.query, got, tc.want, ans.Text)
		}
	}
}

func TestAnswerModelTargetAndParse(t *testing.T) {
	m := answer.DefaultAnswerModel
	if got := m.Target("Summarize the discussion about the budget", 40, 90); got != max(40, min(90, m.SummaryWords)) {
		t.Errorf("summary target %d", got)
	}
	if got := m.Target("Why did they pick rubber?", 40, 50); got > 50 || got < 40 {
		t.Errorf("target %d outside bounds", got)
	}
	if _, err := answer.ParseAnswerModel([]byte(`{"features":["x"],"weights":[1],"mmr_lambda":0.5,"turns":5}`)); err == nil {
		t.Error("a model with unknown features was accepted")
	}
}

// onlyFeature is the shipped model with every weight 0 but feature k's.
func onlyFeature(k int, w float64) answer.AnswerModel {
	m := answer.DefaultAnswerModel
	m.Weights = make([]float64, answer.NumFeatures)
	m.Weights[k] = w
	m.Bias = 0
	return m
}

// The token prior is the mean over a sentence's ROUGE tokens, unknown
// tokens at the default; a model ranking by it alone puts the sentence of
// likely tokens first, and a model with another prior scores with that
// one, not with the shipped prior cached for the sentence.
func TestTokenPriorFeature(t *testing.T) {
	p := &answer.TokenPrior{Default: 0.2, Tokens: map[string]float64{"the": 0.8, "budget": 0.6, "i": 0.0}}
	if got := p.Mean([]string{"the", "budget", "zebra"}); got < 0.533 || got > 0.534 {
		t.Errorf("mean %v, want (0.8+0.6+0.2)/3", got)
	}
	if got := p.Mean(nil); got != 0.2 {
		t.Errorf("mean of nothing %v, want the default", got)
	}
	if got := (*answer.TokenPrior)(nil).Mean([]string{"the"}); got != 0 {
		t.Errorf("nil prior %v, want 0", got)
	}
	turns := fixture([][2]string{
		{"Ann", "I I I mean yeah I guess I I do."},
		{"Bob", "The budget of the team for the launch."},
	})
	ptrs := []*meetingctx.Turn{&turns[0], &turns[1]}
	m := onlyFeature(answer.FPrior, 5)
	m.Prior = p
	cands := m.Candidates(answer.NewContext(ptrs, []int{1, 2}), "")
	if len(cands) != 2 {
		t.Fatalf("%d candidates, want 2", len(cands))
	}
	if !(cands[1].F[answer.FPrior] > cands[0].F[answer.FPrior] && cands[1].Score > cands[0].Score) {
		t.Errorf("prior features %v, %v: the sentence of likely tokens should score higher",
			cands[0].F[answer.FPrior], cands[1].F[answer.FPrior])
	}
	for _, c := range cands {
		if want := p.Mean(rouge.Tokens(c.Text)); c.F[answer.FPrior] != want {
			t.Errorf("%q: prior %v, want this model's %v", c.Text, c.F[answer.FPrior], want)
		}
	}
	if got := cands[0].F[answer.FPrior]; got >= 0.2 {
		t.Errorf("\"I I I mean yeah...\" prior %v, want under the default 0.2 (i is 0)", got)
	}
}

// The token prior, learned on English answers, reads English sentences
// only: a Korean sentence gets the default whatever digits or loanwords
// it has, and a question in Korean gives every sentence the default, so a
// fluent English sentence that says nothing about the question does not
// outrank the Korean ones that answer it. Asked in English, or for a
// catch-up, among candidates in both languages every one gets the default
// too; among English candidates each gets its own. The shipped model,
// whose prior is cached with each sentence, does the same.
func TestTokenPriorLanguages(t *testing.T) {
	p := &answer.TokenPrior{Default: 0.2, Tokens: map[string]float64{"the": 0.9, "for": 0.8, "3": 0.9, "seat": 0.9}}
	if got := p.Sentence("무료로 3 seat까지 쓰고"); got != 0.2 {
		t.Errorf("Korean sentence: prior %v, want the default", got)
	}
	if got := p.Sentence("the seat for 3"); got != 0.9*3/4+0.8/4 {
		t.Errorf("English sentence: prior %v, want the mean of its tokens", got)
	}
	turns := fixture([][2]string{
		{"David", "The subscription service already supports trials for the Pro plan."},
		{"민준", "무료로 3 seat까지 쓰고, 연간 결제하면 20% 할인이에요."},
		{"지현", "정리하면, 무료 좌석은 3개로 하기로 하죠."},
	})
	c := answer.NewContext(ptrs(turns), []int{1, 2, 3})
	for _, m := range []answer.AnswerModel{onlyFeature(answer.FPrior, 5), answer.DefaultAnswerModel} {
		if m.Prior == nil {
			m.Prior = p
		}
		for _, cand := range m.Candidates(c, "무료 좌석은 몇 개로 정했나요?") {
			if got := cand.F[answer.FPrior]; got != m.Prior.Default {
				t.Errorf("Korean question, %q: prior %v, want the default %v", cand.Text, got, m.Prior.Default)
			}
		}
		for _, q := range []string{"How many free seats?", ""} {
			for _, cand := range m.Candidates(c, q) {
				if got := cand.F[answer.FPrior]; got != m.Prior.Default {
					t.Errorf("question %q over both languages, %q: prior %v, want the default %v", q, cand.Text, got, m.Prior.Default)
				}
			}
		}
		english := answer.NewContext(ptrs(turns[:1]), []int{1})
		for _, cand := range m.Candidates(english, "How many free seats?") {
			if want := m.Prior.Sentence(cand.Text); cand.F[answer.FPrior] != want || want == m.Prior.Default {
				t.Errorf("English question over English turns, %q: prior %v, want its own %v", cand.Text, cand.F[answer.FPrior], want)
			}
		}
	}
	if d := answer.DefaultAnswerModel.Prior; d.Sentence(turns[0].Text) <= d.Default {
		t.Fatalf("the fixture's English sentence should have a prior above the default (%v), so the Korean question's default is a change", d.Default)
	}
}

// A catch-up over a stretch of a meeting held in both languages quotes
// both: the English sentences do not win for their language alone.
func TestCatchUpQuotesBothLanguages(t *testing.T) {
	turns := fixture([][2]string{
		{"Priya", "The flag handles sync, but not a crash in the UI."},
		{"지현", "다섯째, 3월 25일에 양쪽 스토어 심사 제출."},
		{"David", "The subscription service already supports trials for the Pro plan."},
		{"민준", "릴리즈 노트 초안은 3월 23일까지 드릴게요."},
		{"David", "Changing the build restarts the review though."},
		{"민준", "장애 공지 템플릿 한국어, 영어로 3월 27일까지 준비할게요."},
		{"David", "The banner only shows for the person whose change was replaced."},
		{"지현", "네 번째 멤버 초대할 때 팀 전체 14일 무료 체험."},
		{"Priya", "The dashboard shows the crash rate for the release by platform and version."},
		{"서연", "스크린샷은 다음 주 월요일에 다시 찍어서 드릴게요."},
		{"David", "The migration runs on a direct connection, not through the pool."},
		{"서연", "심사 중에도 빌드는 바꿀 수 있어요."},
		{"Priya", "The regression plan covers the widget, the sync and the sign-in flow."},
		{"지현", "60일 뒤에 데이터 보고 무료 좌석 다시 검토해요."},
		{"David", "The on-call engineer triages the report within two hours of the ticket."},
		{"민준", "63명에게 안내 메일은 화요일까지 보낼게요."},
	})
	c := answer.NewContext(ptrs(turns), nil)
	m := answer.DefaultAnswerModel
	korean, english := 0, 0
	for _, p := range m.Extract(c, "", answer.DefaultMinWords, answer.DefaultMaxWords) {
		if strings.ContainsFunc(p.Text, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }) {
			korean++
		} else {
			english++
		}
	}
	if korean == 0 || english == 0 {
		t.Errorf("catch-up quotes %d Korean and %d English sentences, want both", korean, english)
	}
}

// With a same-turn penalty the second point comes from another turn even
// when the first turn's second sentence scores a little higher; without
// it, both points are the first turn's.
func TestSameTurnPenaltySpreadsCitations(t *testing.T) {
	turns := fixture([][2]string{
		{"Ann", "The rubber case costs four euros per unit. The rubber case also feels soft in the hand."},
		{"Bob", "The plastic case is the cheaper option for the budget."},
	})
	ptrs := []*meetingctx.Turn{&turns[0], &turns[1]}
	for _, tc := range []struct {
		penalty float64
		want    []int
	}{{0, []int{0, 0}}, {0.5, []int{0, 1}}} {
		m := onlyFeature(answer.FTurnRR, 4)
		m.Lambda, m.SameTurnPenalty = 1, tc.penalty
		cands := m.Candidates(answer.NewContext(ptrs, []int{1, 2}), "which case")
		picked := m.Select(cands, 15, 40)
		var got []int
		for _, s := range picked {
			got = append(got, s.Turn)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("penalty %v: picked turns %v, want %v", tc.penalty, got, tc.want)
		}
	}
}

// A fragment picked alone gets the next sentence of its turn, or the one
// before, when the length bound leaves room for it.
func TestSelectCompletesAFragment(t *testing.T) {
	turns := fixture([][2]string{
		{"Priya", "For the full rollout, yes. Ninety-nine point five percent on both platforms."},
		{"David", "The rollout goes out in three steps over one week."},
	})
	ptrs := []*meetingctx.Turn{&turns[0], &turns[1]}
	// Short sentences first: the fragment is the first pick, and the
	// target is reached with it.
	m := onlyFeature(answer.FShort, 4)
	m.Lambda = 1
	cands := m.Candidates(answer.NewContext(ptrs, []int{1, 2}), "rollout")
	texts := func(ps []answer.Sentence) []string {
		var out []string
		for _, p := range answer.Points(answer.NewContext(ptrs, []int{1, 2}), ps) {
			out = append(out, p.Text)
		}
		return out
	}
	got := texts(m.Select(cands, 5, 40))
	if want := []string{"For the full rollout, yes. Ninety-nine point five percent on both platforms."}; !slices.Equal(got, want) {
		t.Errorf("picked %q, want %q", got, want)
	}
	// No room for the next sentence: the fragment stays alone.
	if got := texts(m.Select(cands, 5, 10)); !slices.Equal(got, []string{"For the full rollout, yes."}) {
		t.Errorf("within 10 words: picked %q, want the fragment alone", got)
	}
	// A fragment that ends its turn gets the sentence before it.
	last := fixture([][2]string{{"Priya", "Ninety-nine point five percent on both platforms. For the full rollout."}})
	lastPtrs := []*meetingctx.Turn{&last[0]}
	m = onlyFeature(answer.FPosition, 4)
	m.Lambda = 1
	cands = m.Candidates(answer.NewContext(lastPtrs, []int{1}), "rollout")
	var both []string
	for _, p := range answer.Points(answer.NewContext(lastPtrs, []int{1}), m.Select(cands, 4, 40)) {
		both = append(both, p.Text)
	}
	if want := []string{"Ninety-nine point five percent on both platforms. For the full rollout."}; !slices.Equal(both, want) {
		t.Errorf("fragment ending its turn: picked %q, want %q", both, want)
	}
}

func TestParseAnswerModelRefusesABadPrior(t *testing.T) {
	m := answer.DefaultAnswerModel
	for name, p := range map[string]*answer.TokenPrior{
		"missing":         nil,
		"default of 0":    {Default: 0, Tokens: map[string]float64{}},
		"token above one": {Default: 0.3, Tokens: map[string]float64{"the": 1.5}},
	} {
		m.Prior = p
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := answer.ParseAnswerModel(b); err == nil || !strings.Contains(err.Error(), "token_prior") {
			t.Errorf("%s: err %v, want a token_prior error", name, err)
		}
	}
	m.Prior, m.SameTurnPenalty = answer.DefaultAnswerModel.Prior, -1
	b, _ := json.Marshal(m)
	if _, err := answer.ParseAnswerModel(b); err == nil {
		t.Error("a negative same-turn penalty was accepted")
	}
}

// A turn among other search hits has their mean reciprocal rank as
// near_rr; an isolated hit has 0.
func TestNearRRFeature(t *testing.T) {
	var rows [][2]string
	for i := range 12 {
		rows = append(rows, [2]string{"Ann", fmt.Sprintf("The rubber case is option number %d for the remote.", i)})
	}
	turns := fixture(rows)
	ranks := make([]int, len(turns))
	ranks[2], ranks[3], ranks[4], ranks[10] = 2, 1, 4, 3
	m := onlyFeature(answer.FNearRR, 1)
	cands := m.Candidates(answer.NewContext(ptrs(turns), ranks), "rubber case")
	near := map[int]float64{}
	for _, c := range cands {
		near[c.Turn] = c.F[answer.FNearRR]
	}
	// Turn 3's neighbours within 3 seqs: 0, 1, 2 (rank 2), 4 (rank 4), 5, 6.
	if want := (1.0/2 + 1.0/4) / 6; math.Abs(near[3]-want) > 1e-12 {
		t.Errorf("turn 3: near_rr %v, want %v", near[3], want)
	}
	if near[10] != 0 {
		t.Errorf("isolated turn 10: near_rr %v, want 0", near[10])
	}
	if !(near[3] > near[10]) {
		t.Errorf("a hit among hits (%v) should have more near_rr than an isolated one (%v)", near[3], near[10])
	}
}

// Consecutive points by one speaker make one line naming the speaker
// once, each sentence with its own citation; another speaker starts a new
// line.
func TestExtractiveNamesASpeakerOncePerRun(t *testing.T) {
	turns := fixture([][2]string{
		{"Ann", "The rubber case costs four euros per unit."},
		{"Ann", "The rubber case feels soft in the hand."},
		{"Bob", "The rubber case needs a second supplier."},
		{"Ann", "The rubber case ships in March."},
	})
	m := onlyFeature(answer.FTurnRR, 4)
	m.Lambda, m.SameTurnPenalty = 1, 0
	ans, err := answer.Extractive{Model: &m}.Answer(t.Context(), answer.NewContext(ptrs(turns), []int{1, 2, 3, 4}), askmode.Answer, "rubber case", func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, ans, "Extracted")
	lines := strings.Split(ans.Text, "\n")[1:]
	want := []string{
		"- Ann: The rubber case costs four euros per unit. [1] The rubber case feels soft in the hand. [2]",
		"- Bob: The rubber case needs a second supplier. [3]",
		"- Ann: The rubber case ships in March. [4]",
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("answer lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got := citedSeqs(ans); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("cited %v, want every turn", got)
	}
}
