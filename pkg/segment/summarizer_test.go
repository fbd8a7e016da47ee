package segment_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
)

func textTurns(texts ...string) []meetingctx.Turn {
	turns := make([]meetingctx.Turn, len(texts))
	for i, x := range texts {
		turns[i] = meetingctx.Turn{Seq: i, Text: x}
	}
	return turns
}

// englishTopic is an AMI-style design discussion.
var englishTopic = textTurns(
	"Okay , so the next thing on the agenda is the battery of the remote control .",
	"Mm-hmm .",
	"From the user study , people complained that the batteries run out too quickly .",
	"Yeah .",
	"We could put a rechargeable battery in the remote control , with a small charging dock .",
	"But a charging dock {disfmarker} that adds to the production cost , I think about three euros per unit .",
	"Um , yeah .",
	"The remote control would still be under twelve euro fifty with the rechargeable battery .",
	"OK .",
	"So we go with the rechargeable battery and the designers draw the charging dock for next week .",
)

// koreanTopic is the same kind of discussion in Korean.
var koreanTopic = textTurns(
	"네, 그럼 오늘은 리모컨 배터리 문제부터 이야기해 볼게요.",
	"음 지난번 사용자 조사에서 배터리가 너무 빨리 닳는다는 불만이 제일 많았어요.",
	"네",
	"그래서 충전식 배터리를 넣는 방안을 검토했는데, 단가가 개당 삼천 원 정도 올라갑니다.",
	"충전식 배터리로 가면 충전 거치대도 따로 디자인해야 하지 않나요?",
	"맞아요. 거치대 디자인은 디자인팀에서 다음 주까지 시안을 만들어 주기로 했습니다.",
	"음",
	"그럼 배터리는 충전식으로 결정하고, 단가는 마케팅팀이랑 한 번 더 확인하죠.",
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name         string
		give         []meetingctx.Turn
		wantKeywords []string // must all be among the keywords
		wantTitle    []string // parts the title has
		wantSummary  string   // the summary contains it
	}{
		{
			name:         "english",
			give:         englishTopic,
			wantKeywords: []string{"rechargeable battery", "remote control", "charging dock"},
			wantTitle:    []string{"rechargeable battery", "remote control", "charging dock"},
			wantSummary:  "rechargeable battery",
		},
		{
			name: "mixed",
			give: textTurns(
				"API 배포 일정은 QA 끝나고 다음 스프린트로 미루죠.",
				"QA 테스트 케이스가 아직 절반밖에 안 됐어요.",
				"네",
				"그럼 API 배포는 QA 테스트 끝나는 대로 하겠습니다.",
			),
			wantKeywords: []string{"API 배포", "QA 테스트"},
			wantTitle:    []string{"API 배포", "QA 테스트"},
			wantSummary:  "API 배포",
		},
		{
			name:         "korean",
			give:         koreanTopic,
			wantKeywords: []string{"충전식 배터리", "거치대", "단가"},
			wantTitle:    []string{"충전식 배터리", "거치대"},
			wantSummary:  "충전식 배터리",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, err := segment.NewSummarizer().Summarize(context.Background(), tt.give, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v", sum)
			for _, k := range tt.wantKeywords {
				if !slices.Contains(sum.Keywords, k) {
					t.Errorf("keywords %q lack %q", sum.Keywords, k)
				}
			}
			if len(sum.Keywords) > 5 {
				t.Errorf("%d keywords, want at most 5", len(sum.Keywords))
			}
			parts := strings.Split(sum.Title, " · ")
			if len(parts) < 2 || len(parts) > 4 {
				t.Errorf("title %q has %d parts, want 2 to 4", sum.Title, len(parts))
			}
			for _, p := range tt.wantTitle {
				if !slices.Contains(parts, p) {
					t.Errorf("title %q lacks %q", sum.Title, p)
				}
			}
			if !strings.Contains(sum.Summary, tt.wantSummary) {
				t.Errorf("summary %q, want it to mention %q", sum.Summary, tt.wantSummary)
			}
			checkSummary(t, sum.Summary)
		})
	}
}

// checkSummary checks the summary contract: one sentence of at most 120
// characters, no transcript markup, no filler at the start.
func checkSummary(t *testing.T, s string) {
	t.Helper()
	if n := utf8.RuneCountInString(s); n == 0 || n > segment.MaxSummaryRunes {
		t.Errorf("summary %q has %d characters", s, n)
	}
	if strings.ContainsAny(s, "{}") {
		t.Errorf("summary %q has markup", s)
	}
	trimmed := strings.TrimRight(s, ".?!…")
	if strings.Contains(trimmed, ". ") || strings.Contains(trimmed, "? ") || strings.Contains(trimmed, "! ") {
		t.Errorf("summary %q is more than one sentence", s)
	}
	for _, f := range []string{"Um ", "Uh ", "So ", "Okay ", "음 ", "네 "} {
		if strings.HasPrefix(s, f) {
			t.Errorf("summary %q starts with a filler", s)
		}
	}
}

func TestSummarizeTrimsLongSentence(t *testing.T) {
	long := "The marketing team reported that younger users between sixteen and twenty-five " +
		"want a fancy look and feel , speech recognition , and a remote that is easy to find when lost ."
	sum, err := segment.NewSummarizer().Summarize(context.Background(), textTurns(long, "Yeah .", long), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(sum.Summary, "…") || utf8.RuneCountInString(sum.Summary) > segment.MaxSummaryRunes {
		t.Errorf("summary %q: want at most 120 characters ending in …", sum.Summary)
	}
	if !strings.HasPrefix(long, strings.TrimSuffix(strings.ReplaceAll(sum.Summary, ",", " ,"), "…")) {
		t.Errorf("summary %q is not a word-boundary prefix of the sentence", sum.Summary)
	}
}

func TestSummarizeFillersOnly(t *testing.T) {
	sum, err := segment.NewSummarizer().Summarize(context.Background(), textTurns("Yeah .", "Mm-hmm .", "OK ."), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Summary == "" || sum.Title == "" {
		t.Errorf("fillers only: %+v, want a fallback sentence and title", sum)
	}
	for _, give := range [][]meetingctx.Turn{nil, textTurns("", "{disfmarker}", " . ")} {
		if _, err := segment.NewSummarizer().Summarize(context.Background(), give, nil); !errors.Is(err, segment.ErrNoContent) {
			t.Errorf("Summarize(%v) err = %v, want ErrNoContent", give, err)
		}
	}
}

func TestSummarizeHints(t *testing.T) {
	turns := textTurns(
		"The budget for the case is fifteen euros .",
		"We need to check the budget with finance .",
		"The case will be made of rubber , the rubber case feels nice .",
		"Finance wants the budget by Friday .",
	)
	plain, err := segment.NewSummarizer().Summarize(context.Background(), turns, nil)
	if err != nil {
		t.Fatal(err)
	}
	hinted, err := segment.NewSummarizer().Summarize(context.Background(), turns,
		[]meetingctx.Topic{{Keywords: []string{"finance"}}})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Keywords[0] != "budget" {
		t.Errorf("keywords without hints %q, want budget first", plain.Keywords)
	}
	if hinted.Keywords[0] != "finance" {
		t.Errorf("keywords with hints %q, want finance first", hinted.Keywords)
	}
}

func TestSummarizeContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := segment.NewSummarizer().Summarize(ctx, englishTopic, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
