package prompted_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/prompted"
	"github.com/mithub/mithub/pkg/meetingctx"
)

func TestSummarize(t *testing.T) {
	turns := chunk()[:5]
	fallback := meetingctx.Summary{Title: "Topic_25_29", Summary: texts[0]}
	tests := []struct {
		name    string
		give    *fakeChatter
		want    meetingctx.Summary
		wantErr error
	}{
		{"good", answer(`{"title": "마케팅 예산", "summary": "광고비를 10% 줄이기로 했다.", "keywords": ["예산", "광고비"]}`),
			meetingctx.Summary{Title: "마케팅 예산", Summary: "광고비를 10% 줄이기로 했다.", Keywords: []string{"예산", "광고비"}}, nil},
		{"fenced with prose", answer("Sure:\n```json\n{\"title\": \"Budget\", \"summary\": \"Cut ads by 10%.\"}\n```"),
			meetingctx.Summary{Title: "Budget", Summary: "Cut ads by 10%."}, nil},
		{"wrong types", answer(`{"title": 2024, "summary": ["예산을 줄였다."], "keywords": "예산"}`),
			meetingctx.Summary{Title: "2024", Summary: "예산을 줄였다.", Keywords: []string{"예산"}}, nil},
		{"cut off", answer(`{"title": "예산", "summary": "광고비를 줄이`),
			meetingctx.Summary{Title: "예산", Summary: "광고비를 줄이"}, nil},
		{"title only", answer(`{"title": "예산"}`),
			meetingctx.Summary{Title: "예산", Summary: texts[0]}, nil},
		{"no title or summary", answer(`{"keywords": ["x"]}`), fallback, prompted.ErrUnusable},
		{"garbage", answer("요약할 수 없습니다."), fallback, prompted.ErrUnusable},
		{"error", failing(llm.ErrPermanent), fallback, llm.ErrPermanent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := prompted.NewSummarizer(tt.give, prompted.Config{}).Summarize(context.Background(), turns, nil)
			if tt.wantErr == nil && err != nil {
				t.Fatalf("err = %v", err)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Summarize = %+v, want %+v", got, tt.want)
			}
			req := tt.give.requests()[0]
			if !req.JSON || !strings.Contains(req.Messages[1].Content, "[25] 민지: 다음 분기") {
				t.Errorf("request %+v", req)
			}
		})
	}
}

func TestSummarizeLongSummary(t *testing.T) {
	long := strings.Repeat("예산과 일정을 함께 논의했다 ", 20)
	got, err := prompted.NewSummarizer(answer(fmt.Sprintf(`{"title": "t", "summary": %q}`, long)), prompted.Config{}).
		Summarize(context.Background(), chunk(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(got.Summary); n > prompted.MaxSummaryRunes || !utf8.ValidString(got.Summary) {
		t.Errorf("summary of %d runes: %q", n, got.Summary)
	}
}

func TestSummarizeMerge(t *testing.T) {
	hints := []meetingctx.Topic{
		{Title: "예산", Summary: "예산을 줄였다.", Keywords: []string{"예산"}, StartSeq: 25, EndSeq: 29},
		{Title: "Schedule", Summary: "Release moved to the 22nd.", Keywords: []string{"release", "예산"}, StartSeq: 30, EndSeq: 34},
	}
	chat := failing(llm.ErrUnavailable)
	got, err := prompted.NewSummarizer(chat, prompted.Config{}).Summarize(context.Background(), chunk(), hints)
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	want := meetingctx.Summary{Title: "Topic_25_34", Summary: texts[0], Keywords: []string{"예산", "release"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fallback = %+v, want %+v", got, want)
	}
	req := chat.requests()[0]
	if !strings.Contains(req.Messages[0].Content, "merged") || !strings.Contains(req.Messages[1].Content, "- [30-34] Schedule: Release moved") {
		t.Errorf("merge prompt:\n%s\n%s", req.Messages[0].Content, req.Messages[1].Content)
	}

	got, err = prompted.NewSummarizer(failing(llm.ErrUnavailable), prompted.Config{}).Summarize(context.Background(), nil, hints)
	if err == nil || got.Title != "예산 / Schedule" || got.Summary != "예산을 줄였다. Release moved to the 22nd." {
		t.Errorf("fallback from hints = %+v, %v", got, err)
	}
}

func TestSummarizeNoInput(t *testing.T) {
	chat := answer(`{"title": "x"}`)
	_, err := prompted.NewSummarizer(chat, prompted.Config{}).Summarize(context.Background(), nil, nil)
	if !errors.Is(err, prompted.ErrNoInput) || len(chat.requests()) != 0 {
		t.Errorf("err = %v after %d requests", err, len(chat.requests()))
	}
}

func TestSummarizeLeavesOutMiddleTurns(t *testing.T) {
	turns := make([]meetingctx.Turn, 100)
	for i := range turns {
		turns[i] = meetingctx.Turn{Seq: i, SpeakerID: "spk", Text: fmt.Sprintf("turn %d", i)}
	}
	chat := answer(`{"title": "t", "summary": "s"}`)
	prompted.NewSummarizer(chat, prompted.Config{MaxSummaryTurns: 10}).Summarize(context.Background(), turns, nil)
	user := chat.requests()[0].Messages[1].Content
	for _, want := range []string{"[0] spk: turn 0\n", "[4] spk: turn 4\n", "[... 90 turns left out ...]", "[95] spk: turn 95\n", "[99] spk: turn 99\n"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(user, "turn 50\n") {
		t.Errorf("prompt shows a middle turn")
	}
}
