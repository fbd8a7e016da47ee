package tokens_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/tokens"
)

// runeCounter counts one token per rune, which keeps expected packings
// readable.
type runeCounter struct{}

func (runeCounter) Count(s string) int { return utf8.RuneCountInString(s) }
func (runeCounter) Encoding() string   { return "runes" }

func TestPackerPack(t *testing.T) {
	sys := tokens.Part{Name: "system", Text: "sys"}
	q := tokens.Part{Name: "question", Text: "q?"}
	tests := []struct {
		name               string
		budget             int
		required, optional []tokens.Part
		want               tokens.Packed
	}{
		{
			name:     "everything fits",
			budget:   10,
			required: []tokens.Part{sys, q},
			optional: []tokens.Part{{Name: "l0", Text: "abcd"}},
			want: tokens.Packed{Total: 9, Budget: 10, Parts: []tokens.PackedPart{
				{Name: "system", Text: "sys", Tokens: 3, Included: true},
				{Name: "question", Text: "q?", Tokens: 2, Included: true},
				{Name: "l0", Text: "abcd", Tokens: 4, Included: true},
			}},
		},
		{
			name:     "a part that does not fit is dropped, a later one still fits",
			budget:   10,
			required: []tokens.Part{sys, q},
			optional: []tokens.Part{{Name: "topics", Text: "abcdef"}, {Name: "memory", Text: "xyz"}},
			want: tokens.Packed{Total: 8, Budget: 10, Parts: []tokens.PackedPart{
				{Name: "system", Text: "sys", Tokens: 3, Included: true},
				{Name: "question", Text: "q?", Tokens: 2, Included: true},
				{Name: "topics"},
				{Name: "memory", Text: "xyz", Tokens: 3, Included: true},
			}},
		},
		{
			name:     "keep head",
			budget:   10,
			required: []tokens.Part{sys, q},
			optional: []tokens.Part{{Name: "doc", Text: "abcdefghij", Truncate: tokens.KeepHead}},
			want: tokens.Packed{Total: 10, Budget: 10, Parts: []tokens.PackedPart{
				{Name: "system", Text: "sys", Tokens: 3, Included: true},
				{Name: "question", Text: "q?", Tokens: 2, Included: true},
				{Name: "doc", Text: "abcde", Tokens: 5, Included: true, Truncated: true},
			}},
		},
		{
			name:     "keep tail on rune boundaries",
			budget:   8,
			required: []tokens.Part{sys, q},
			optional: []tokens.Part{{Name: "turns", Text: "가나다라마바", Truncate: tokens.KeepTail}},
			want: tokens.Packed{Total: 8, Budget: 8, Parts: []tokens.PackedPart{
				{Name: "system", Text: "sys", Tokens: 3, Included: true},
				{Name: "question", Text: "q?", Tokens: 2, Included: true},
				{Name: "turns", Text: "라마바", Tokens: 3, Included: true, Truncated: true},
			}},
		},
		{
			name:     "required parts overflow and are kept",
			budget:   4,
			required: []tokens.Part{sys, q},
			optional: []tokens.Part{{Name: "l0", Text: "abc", Truncate: tokens.KeepTail}, {Name: "empty"}},
			want: tokens.Packed{Total: 5, Budget: 4, Parts: []tokens.PackedPart{
				{Name: "system", Text: "sys", Tokens: 3, Included: true},
				{Name: "question", Text: "q?", Tokens: 2, Included: true},
				{Name: "l0"},
				{Name: "empty"},
			}},
		},
		{
			name:     "precomputed counts: an image fits, a file does not and cannot be cut",
			budget:   3000,
			required: []tokens.Part{{Name: "question", Text: "what is on the slide?", Tokens: 6}},
			optional: []tokens.Part{
				{Name: "file", Tokens: tokens.FileTokens, Truncate: tokens.KeepHead},
				{Name: "image", Tokens: tokens.ImageTokens},
			},
			want: tokens.Packed{Total: 1006, Budget: 3000, Parts: []tokens.PackedPart{
				{Name: "question", Text: "what is on the slide?", Tokens: 6, Included: true},
				{Name: "file"},
				{Name: "image", Tokens: 1000, Included: true},
			}},
		},
		{
			name:     "nothing of a cut part fits",
			budget:   5,
			required: []tokens.Part{sys, q},
			optional: []tokens.Part{{Name: "doc", Text: "abc", Truncate: tokens.KeepHead}},
			want: tokens.Packed{Total: 5, Budget: 5, Parts: []tokens.PackedPart{
				{Name: "system", Text: "sys", Tokens: 3, Included: true},
				{Name: "question", Text: "q?", Tokens: 2, Included: true},
				{Name: "doc"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tokens.Packer{Counter: runeCounter{}, Budget: tt.budget}
			if got := p.Pack(tt.required, tt.optional); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Pack =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestPackedOverflow(t *testing.T) {
	tests := []struct {
		give tokens.Packed
		want int
	}{
		{tokens.Packed{Total: 90, Budget: 100}, 0},
		{tokens.Packed{Total: 100, Budget: 100}, 0},
		{tokens.Packed{Total: 130, Budget: 100}, 30},
	}
	for _, tt := range tests {
		if got := tt.give.Overflow(); got != tt.want {
			t.Errorf("%+v.Overflow() = %d, want %d", tt.give, got, tt.want)
		}
	}
}

// With a real tokenizer, a cut part is valid UTF-8, a head or tail of the
// original, and counts what its accounting says.
func TestPackerCutsWithBPE(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.O200K)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("지난주 회의에서 API 응답 시간을 200ms 이하로 줄이기로 결정했습니다. 😀 ", 40)
	for _, tr := range []tokens.Truncation{tokens.KeepHead, tokens.KeepTail} {
		for room := 1; room < 60; room += 7 {
			p := tokens.Packer{Counter: c, Budget: room}
			got := p.Pack(nil, []tokens.Part{{Name: "doc", Text: text, Truncate: tr}}).Parts[0]
			if !utf8.ValidString(got.Text) || c.Count(got.Text) != got.Tokens || got.Tokens > room {
				t.Errorf("truncation %d, room %d: %q counted %d", tr, room, got.Text, got.Tokens)
			}
			if !strings.HasPrefix(text, got.Text) && !strings.HasSuffix(text, got.Text) {
				t.Errorf("truncation %d, room %d: %q is neither head nor tail", tr, room, got.Text)
			}
			if got.Tokens < room-8 {
				t.Errorf("truncation %d, room %d: only %d tokens used", tr, room, got.Tokens)
			}
		}
	}
}

var packWords = strings.Fields("회의 결정 다음 주 배포 일정을 확인했습니다 the budget is approved API 서버 latency 200ms " +
	"let's 검토 OKR Q3 매출 😀 https://mithub.dev/docs action item: 정리해서 공유 McDonald's HTTPServer")

func randomText(rng *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteString([]string{" ", " ", " ", "\n", ", "}[rng.IntN(5)])
		}
		b.WriteString(packWords[rng.IntN(len(packWords))])
	}
	return b.String()
}

func randomPart(rng *rand.Rand, name string, window int) tokens.Part {
	p := tokens.Part{Name: name, Truncate: tokens.Truncation(rng.IntN(3))}
	switch rng.IntN(6) {
	case 0:
		p.Tokens = tokens.ImageTokens
	case 1:
		p.Tokens = tokens.FileTokens
	case 2:
		p.Tokens = 1 + rng.IntN(window/2)
	default:
		p.Text = randomText(rng, 1+rng.IntN(min(window/3, 3000)))
	}
	return p
}

// Packing never exceeds the budget unless the required parts alone do, and
// always keeps the required parts whole.
func TestPackerProperties(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, window := range []int{4096, 8192, 128000} {
		for range 60 {
			budget := tokens.NewBudget(window, rng.IntN(window/4)).Available()
			var required, optional []tokens.Part
			required = append(required, tokens.Part{Name: "system", Text: randomText(rng, 1+rng.IntN(window/8))})
			if rng.IntN(8) == 0 {
				required = append(required, tokens.Part{Name: "pasted", Text: randomText(rng, window)})
			}
			required = append(required, tokens.Part{Name: "question", Text: randomText(rng, 1+rng.IntN(40))})
			for i := range rng.IntN(9) {
				optional = append(optional, randomPart(rng, string(rune('a'+i)), window))
			}
			got := tokens.Packer{Counter: c, Budget: budget}.Pack(required, optional)
			checkPacked(t, c, budget, required, optional, got)
		}
	}
}

func checkPacked(t *testing.T, c tokens.Counter, budget int, required, optional []tokens.Part, got tokens.Packed) {
	t.Helper()
	if len(got.Parts) != len(required)+len(optional) || got.Budget != budget {
		t.Fatalf("got %d parts, budget %d; want %d, %d", len(got.Parts), got.Budget, len(required)+len(optional), budget)
	}
	reqTotal, total := 0, 0
	for i, r := range required {
		pp := got.Parts[i]
		if !pp.Included || pp.Truncated || pp.Text != r.Text || pp.Tokens != c.Count(r.Text) {
			t.Fatalf("required part %s: %+v", r.Name, pp)
		}
		reqTotal += pp.Tokens
	}
	for i, o := range optional {
		pp := got.Parts[len(required)+i]
		switch {
		case !pp.Included:
			if pp.Tokens != 0 || pp.Text != "" {
				t.Fatalf("dropped part %s has %d tokens", o.Name, pp.Tokens)
			}
		case pp.Truncated:
			if o.Truncate == tokens.NoTruncation || c.Count(pp.Text) != pp.Tokens || !utf8.ValidString(pp.Text) ||
				!strings.HasPrefix(o.Text, pp.Text) && !strings.HasSuffix(o.Text, pp.Text) {
				t.Fatalf("cut part %s: %d tokens, text %.40q", o.Name, pp.Tokens, pp.Text)
			}
		case o.Tokens > 0:
			if pp.Tokens != o.Tokens {
				t.Fatalf("part %s: %d tokens, want the precomputed %d", o.Name, pp.Tokens, o.Tokens)
			}
		default:
			if pp.Text != o.Text || pp.Tokens != c.Count(o.Text) {
				t.Fatalf("part %s: %d tokens, text changed", o.Name, pp.Tokens)
			}
		}
		total += pp.Tokens
	}
	total += reqTotal
	if got.Total != total {
		t.Fatalf("Total = %d, parts sum to %d", got.Total, total)
	}
	if reqTotal <= budget && got.Total > budget {
		t.Fatalf("Total %d exceeds budget %d", got.Total, budget)
	}
	if reqTotal > budget && (got.Total != reqTotal || got.Overflow() != reqTotal-budget) {
		t.Fatalf("required parts overflow by %d, yet Total = %d, Overflow = %d", reqTotal-budget, got.Total, got.Overflow())
	}
}
