package prdoc

import "testing"

func TestClean(t *testing.T) {
	tests := []struct {
		name, give, want string
	}{
		{"markers", "And it {disfmarker} it {disfmarker} it {disfmarker} it it also has to be switched on .", "And it also has to be switched on."},
		{"vocalsound and gap", "{vocalsound} We {gap} need the budget {comment} .", "We need the budget."},
		{"fillers keep punctuation", "Um , so we will go through and , uh , check it .", "So we will go through and, check it."},
		{"you know", "Um, so we will go through and, in the speaker ID tags there'll be, you know, M-one O seven.", "So we will go through and, in the speaker ID tags there'll be, M-one O seven."},
		{"false start", "You have to al also have to read some digits .", "You have to also have to read some digits."},
		{"one-letter false start", "S so any any questions ?", "So any questions?"},
		{"word before its contraction", "I I'll check it , we we 're done", "I'll check it, we're done"},
		{"cut-off word", "we w- we should fix it", "We should fix it"},
		{"phrase repetition", "I think I think we should go with the blue one", "I think we should go with the blue one"},
		{"contractions", "It 's fine , we do n't need it .", "It's fine, we don't need it."},
		{"hyphenated backchannel", "Mm - hmm . OK .", "OK."},
		{"short words kept", "a an in insight so some", "A an in insight so some"},
		{"numbers not repeats", "one two two three 5 5", "One two three 5 5"},
		{"korean fillers", "음 그러면 어 다음 주까지 제가 정리하겠습니다 .", "그러면 다음 주까지 제가 정리하겠습니다."},
		{"korean repetition", "이거 이거 결정하죠", "이거 결정하죠"},
		{"empty", "{vocalsound} um", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.give); got != tt.want {
				t.Errorf("Clean(%q)\n got %q\nwant %q", tt.give, got, tt.want)
			}
		})
	}
}
