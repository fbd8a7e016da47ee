package segment

import (
	"math"
	"testing"
)

func TestCueScore(t *testing.T) {
	tests := []struct {
		give string
		want float64
	}{
		{give: "OK , let's move on to the budget .", want: 1},
		{give: "We've got some questions now on examinations from Janet .", want: 1},
		{give: "다음 안건으로 넘어가겠습니다.", want: 1},
		{give: "Thank you .", want: 0.5},
		{give: "The battery is too weak .", want: 0},
		// Only the start of a turn counts.
		{give: "a b c d e f g h i j k l m n o p q r s t u v w x y z let's move on", want: 0},
		// Two weaker cues combine: 1 − (1 − 0.5)(1 − 0.3).
		{give: "Thank you . Now , the design .", want: 0.65},
	}
	for _, tt := range tests {
		if got := cueScore(tokenize(tt.give)); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("cueScore(%q) = %v, want %v", tt.give, got, tt.want)
		}
	}
}
