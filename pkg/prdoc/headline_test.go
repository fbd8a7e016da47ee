package prdoc

import (
	"strings"
	"testing"
)

func none(string) bool { return false }

// The heading is the most frequent run of recurring content words of the
// item's most central sentence, in English and Korean; turns outside the
// item do not count, and an item without such a run has no heading.
func TestHeadline(t *testing.T) {
	mk := func(lines ...string) []Turn {
		out := make([]Turn, len(lines))
		for i, l := range lines {
			out[i] = Turn{Seq: i, Speaker: "A", Text: l}
		}
		return out
	}
	tests := []struct {
		name     string
		give     []Turn
		from, to int
		want     string
	}{
		{"english", mk(
			"Um, so the remote control casing should be rubber, I think.",
			"The remote control casing costs more in plastic.",
			"Yeah, the remote control casing is the main question.",
			"I like the yellow one.",
		), 0, 3, "Remote control casing"},
		{"korean", mk(
			"음 배포 일정 검토를 먼저 하죠.",
			"배포 일정 검토는 다음 주에 끝납니다.",
			"그럼 배포 일정 검토 결과를 공유할게요.",
		), 0, 2, "배포 일정 검토"},
		{"short item: words that recur twice, no preposition at the end", mk(
			"Five percent on day one, then the sync error rate under half a percent.",
			"The sync error rate under load was fine on staging.",
			"Good, I'll check it.",
		), 0, 2, "Sync error rate"},
		{"a particle ends the phrase", mk(
			"iOS는 phased release로 가고, Android는 staged rollout으로 갑니다.",
			"iOS는 phased release 7일이면 충분해요.",
			"그럼 iOS는 phased release, 확정이요.",
		), 0, 2, "Phased release"},
		{"a verb with a connective ending does not start a heading", mk(
			"회귀 테스트에서 critical 나오면 빌드 교체 합니다.",
			"critical 나오면 빌드 교체, 그게 원칙이에요.",
			"네, critical 나오면 빌드 교체로 가죠.",
		), 0, 2, "빌드 교체"},
		{"a noun ending like a particle keeps it", mk(
			"주간 회의 결과를 공유합니다.",
			"주간 회의 결과는 괜찮았어요.",
			"그럼 주간 회의 결과 정리할게요.",
		), 0, 2, "주간 회의"},
		{"a verb with a final ending makes no heading", mk(
			"오늘 빌드 교체 머지할게요.",
			"네, 빌드 교체 머지할게요.",
			"그럼 빌드 교체 머지할게요.",
		), 0, 2, "빌드 교체"},
		{"a pronoun with a particle is no word of two syllables", mk(
			"내가 정리 내가 정리 내가 정리.",
			"내가 정리 내가 정리.",
			"내가 정리 끝.",
		), 0, 2, ""},
		{"no dates or one-syllable words", mk(
			"심사 제출은 3월 25일에 제가 할게요.",
			"3월 25일 심사 제출 전에 스크린샷이 필요해요.",
			"스크린샷은 3월 25일 전에 제가 드릴게요.",
			"그럼 심사 제출 3월 25일로 확정이요.",
		), 0, 3, "심사 제출"},
		{"outside the item", mk(
			"The remote control casing is rubber.",
			"The remote control casing is plastic.",
			"The remote control casing is wood.",
			"Budget figures arrive tomorrow morning.",
		), 3, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := headline(tt.give, tt.from, tt.to, func(string) float64 { return 1 }, nil, none); got != tt.want {
				t.Errorf("headline = %q, want %q", got, tt.want)
			}
		})
	}
}

// A key-term title or a fallback name gets a heading; a title a model
// gave (a heading already) stays.
func TestRetitleKeepsHeadings(t *testing.T) {
	turns := []Turn{
		{Seq: 0, Speaker: "A", Text: "The launch checklist review should be short.", StartMS: 0, EndMS: 1000},
		{Seq: 1, Speaker: "B", Text: "The launch checklist review takes a day.", StartMS: 1000, EndMS: 2000},
		{Seq: 2, Speaker: "A", Text: "So the launch checklist review is the main question.", StartMS: 2000, EndMS: 3000},
	}
	for _, tt := range []struct{ give, want string }{
		{"checklist · review · day", "Launch checklist review"},
		{"Topic_0_2", "Launch checklist review"},
		{"", "Launch checklist review"},
		{"Checklist length", "Checklist length"},
	} {
		it := AgendaItem{Title: tt.give, StartSeq: 0, EndSeq: 2}
		retitle(&it, turns, func(string) float64 { return 1 }, defaultHeadingWords, headings{})
		if it.Title != tt.want || it.StartMS != 0 || it.EndMS != 3000 {
			t.Errorf("retitle(%q) = %q %d-%d ms, want %q 0-3000 ms", tt.give, it.Title, it.StartMS, it.EndMS, tt.want)
		}
	}
}

// Weighed by novelty, a heading names what is new in the item rather than
// what every item of the meeting talks about; words such as "because",
// "all" and spelled numbers make no heading.
func TestHeadlineNamesWhatIsNew(t *testing.T) {
	turns := []Turn{
		{Seq: 0, Speaker: "A", Text: "The remote control needs a remote control cover."},
		{Seq: 1, Speaker: "B", Text: "The scroll wheel on the remote control is grey."},
		{Seq: 2, Speaker: "A", Text: "A grey scroll wheel, fine, and the remote control stays black."},
		{Seq: 3, Speaker: "B", Text: "The scroll wheel costs twelve euros because all twelve buttons go."},
	}
	uniform := func(string) float64 { return 1 }
	if got := headline(turns, 0, 3, uniform, nil, none); got != "Remote control" {
		t.Fatalf("uniform weights: %q, want the most frequent run %q", got, "Remote control")
	}
	// "remote" and "control" were in the item before this one too.
	df := map[string]int{"remote": 2, "control": 2, "scroll": 1, "wheel": 1, "grey": 1, "cover": 1}
	if got := headline(turns, 0, 3, noveltyIDF(df, 2), nil, none); got != "Scroll wheel" {
		t.Fatalf("novelty weights: %q, want %q", got, "Scroll wheel")
	}
	for _, w := range []string{"because", "all", "twelve", "together"} {
		if !headlineStop[w] {
			t.Errorf("%q can make a heading", w)
		}
	}
}

// Words people title a discussion with steer the heading: a run that
// starts or ends with a word they seldom use ("please", "only") is passed
// over for one that does not, the weights rank the runs, an item whose
// only runs have such ends still gets one, and a heading an earlier item
// has is not repeated.
func TestHeadlineUsesHeadingWords(t *testing.T) {
	words := &HeadingWords{Prior: 0.02, Weights: map[string]float64{
		"please": 0.2, "press": 0.5, "only": 0.05, "useful": 0.4, "prototype": 9, "model": 3, "button": 1.2,
	}}
	uniform := func(string) float64 { return 1 }
	turns := []Turn{
		{Seq: 0, Speaker: "A", Text: "Please press play, please press play now."},
		{Seq: 1, Speaker: "B", Text: "Please press it, then the prototype model lights up."},
		{Seq: 2, Speaker: "A", Text: "The prototype model has one button."},
		{Seq: 3, Speaker: "B", Text: "Please press the button on the prototype model."},
	}
	if got := headline(turns, 0, 3, uniform, nil, none); got != "Please press" {
		t.Fatalf("without heading words: %q, want the most frequent run %q", got, "Please press")
	}
	if got := headline(turns, 0, 3, uniform, words, none); got != "Prototype model" {
		t.Fatalf("with heading words: %q, want %q", got, "Prototype model")
	}
	taken := func(h string) bool { return h == "Prototype model" }
	if got := headline(turns, 0, 3, uniform, words, taken); got == "Prototype model" || got == "" {
		t.Fatalf("with the heading taken: %q, want another heading", got)
	}
	only := []Turn{
		{Seq: 0, Speaker: "A", Text: "Only useful things, only useful."},
		{Seq: 1, Speaker: "B", Text: "Yes, only useful ones."},
		{Seq: 2, Speaker: "A", Text: "Only useful, I said."},
	}
	if got := headline(only, 0, 2, uniform, words, none); got != "Only useful" {
		t.Fatalf("no run with title words: %q, want the best run %q", got, "Only useful")
	}
}

// An agenda never gives two items the same heading.
func TestRetitleDoesNotRepeatAHeading(t *testing.T) {
	turns := []Turn{
		{Seq: 0, Speaker: "A", Text: "The remote control casing should be rubber."},
		{Seq: 1, Speaker: "B", Text: "The remote control casing costs more than the scroll wheel casing."},
		{Seq: 2, Speaker: "A", Text: "So the remote control casing and the scroll wheel casing are the main question."},
	}
	titles := headings{}
	first := AgendaItem{Title: "a · b", StartSeq: 0, EndSeq: 2}
	retitle(&first, turns, func(string) float64 { return 1 }, defaultHeadingWords, titles)
	second := AgendaItem{Title: "c · d", StartSeq: 0, EndSeq: 2}
	retitle(&second, turns, func(string) float64 { return 1 }, defaultHeadingWords, titles)
	if first.Title == "a · b" || second.Title == "c · d" || strings.EqualFold(first.Title, second.Title) {
		t.Fatalf("headings %q and %q, want two different headings", first.Title, second.Title)
	}
}
