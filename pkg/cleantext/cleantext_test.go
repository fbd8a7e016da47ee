package cleantext

import (
	"slices"
	"testing"
)

func TestClean(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"markers", "we need to hire {disfmarker} one more person {vocalsound} .", "We need to hire one more person."},
		{"gap pause comment", "so {gap} the budget {pause} is {comment} fixed", "So the budget is fixed"},
		{"fillers", "Um , so we will go through and uh the speaker ID tags", "So we will go through and the speaker ID tags"},
		{"filler ends sentence", "that is fine um . Next item", "That is fine. Next item"},
		{"word repetition", "it {disfmarker} it 's getting more complicated", "It's getting more complicated"},
		{"repeated thrice", "in {disfmarker} in {disfmarker} in compiling here", "In compiling here"},
		{"phrase repetition", "we should in the in the end decide", "We should in the end decide"},
		{"false start prefix", "S so any any questions ?", "So any questions?"},
		{"false start hyphen", "we wh- what do we do", "We what do we do"},
		{"fragment then word", "compi compiling the list", "Compiling the list"},
		{"short word is not a false start", "a and b are in india", "A and b are in india"},
		{"sentence-ending repeat kept", "Yeah. Yeah. We agreed", "Yeah. Yeah. We agreed"},
		{"clitics", "we do n't know , they 're late", "We don't know, they're late"},
		{"quotes", `the " landmark-iness " of it`, `The "landmark-iness" of it`},
		{"backchannel", "Mm - hmm . Yeah .", "Yeah."},
		{"only noise", "{vocalsound} Um . {disfmarker}", ""},
		{"unintelligible word", "So we 're supposed to @ @ about features , @@ and @", "So we're supposed to about features, and"},
		{"at sign in a word kept", "mail me@example.com now", "Mail me@example.com now"},
		{"korean fillers", "음 그 그 예산은 어 다음 주에 정하기로 했습니다 .", "그 예산은 다음 주에 정하기로 했습니다."},
		{"korean false start", "그러 그러니까 일정이 일정이 밀렸어요", "그러니까 일정이 밀렸어요"},
		{"korean repetition across marker", "배포는 {disfmarker} 배포는 금요일에 해요", "배포는 금요일에 해요"},
		{"you know aside", "Um, so we will go through and, in the speaker ID tags there'll be, you know, M-one O seven.", "So we will go through and, in the speaker ID tags there'll be, M-one O seven."},
		{"i mean aside ends a sentence", "That's the plan, I mean. Next", "That's the plan. Next"},
		{"you know not an aside", "you know the answer", "You know the answer"},
		{"numbers not repeats", "one two two three 5 5", "One two three 5 5"},
		{"word before its contraction", "I I'll check it , we we 're done", "I'll check it, we're done"},
		{"repeat then clitic", "I {disfmarker} I I 'll check the the settings", "I'll check the settings"},
		{"cut-off word", "we w- we should fix it", "We should fix it"},
		{"korean fillers with a sentence end", "음 그러면 어 다음 주까지 제가 정리하겠습니다 .", "그러면 다음 주까지 제가 정리하겠습니다."},
	}
	for _, c := range cases {
		if got := Clean(c.in); got != c.want {
			t.Errorf("%s: Clean(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestSentences(t *testing.T) {
	got := Sentences("We agreed. Why not? 3.5 euros is the price! 좋습니다. ok")
	want := []string{"We agreed.", "Why not?", "3.5 euros is the price!", "좋습니다.", "ok"}
	if !slices.Equal(got, want) {
		t.Errorf("Sentences = %q, want %q", got, want)
	}
	if got := Sentences(". ? !"); len(got) != 0 {
		t.Errorf("no words gave %q", got)
	}
}

func TestTrimLead(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"And so yeah, we need a budget.", "We need a budget."},
		{"Okay, the remote is yellow.", "The remote is yellow."},
		{"So far we have three designs.", "So far we have three designs."},
		{"So that we can ship it.", "So that we can ship it."},
		{"Right, let's start.", "Let's start."},
		{"Right now it costs four euros.", "Right now it costs four euros."},
		{"But the battery is too big.", "But the battery is too big."},
		{"Yes, we agreed.", "Yes, we agreed."},
		{"And yeah.", "Yeah."},
		{"Well.", "Well."},
		{"그래서 배포는 금요일에 합니다.", "배포는 금요일에 합니다."},
		{"네 그럼 다음 주에 다시 보죠.", "다음 주에 다시 보죠."},
		// 네 before a counter is the numeral four.
		{"네 번째 멤버를 초대하면 trial이 시작돼요.", "네 번째 멤버를 초대하면 trial이 시작돼요."},
		{"네 명이 같이 써요.", "네 명이 같이 써요."},
		{"네 개발은 끝났어요.", "개발은 끝났어요."},
		{"네, 번째는 아니고요.", "번째는 아니고요."},
		{"We need a budget.", "We need a budget."},
	} {
		if got := TrimLead(c.in); got != c.want {
			t.Errorf("TrimLead(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
