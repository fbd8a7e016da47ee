package convmemory

import (
	"context"
	"strings"
	"testing"
)

// filler is talk without specifics: what a chunk mostly holds.
var filler = []Turn{
	{Speaker: "A", Text: "Yeah, I think that makes sense to me. We can look at it again later."},
	{Speaker: "B", Text: "Right, so maybe we should think about how that would work for everyone."},
	{Speaker: "A", Text: "OK."},
	{Speaker: "B", Text: "I mean it depends on what people want, and we don't really know that yet."},
	{Speaker: "A", Text: "Sure, that sounds fine, let's keep going with the other things then."},
}

func withFact(fact Turn, at int) []Turn {
	out := append([]Turn{}, filler[:at]...)
	out = append(out, fact)
	return append(out, filler[at:]...)
}

func TestChunkSummaryKeepsTheSpecificSentence(t *testing.T) {
	l := NewLocal()
	l.SummaryTokens = 30 // room for about one sentence
	tests := []struct{ name, text, want string }{
		{"date and acronym", "By the way the staging DB password rotates on 2026-03-14, so update the vault.", "2026-03-14"},
		{"identifier and file", "The flaky one is TestInvoiceDedup in webhook_store.go and it fails weekly.", "TestInvoiceDedup"},
		{"decision with a number", "We decided to set the batch size to 2400 because the queue kept timing out.", "2400"},
		{"name at the start", "Victor Lindqvist will present the roadmap to the board in February.", "Victor Lindqvist"},
		{"Korean owner", "참고로 결제 모듈 담당은 김서연입니다.", "김서연"},
		{"Korean titled name", "고객 인터뷰 일정은 한은서 님이 맡기로 했습니다.", "한은서"},
		{"Korean decision", "배포 동결은 3월 14일부터 시작하기로 결정했습니다.", "3월 14일"},
	}
	for _, tt := range tests {
		for _, at := range []int{0, 2, 5} {
			got, err := l.SummarizeChunk(context.Background(), withFact(Turn{Speaker: "C", Text: tt.text}, at))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("%s at %d: summary %q lost %q", tt.name, at, got, tt.want)
			}
		}
	}
}

func TestMergeCarriesFactsUpward(t *testing.T) {
	l := NewLocal()
	var parts []string
	facts := []string{"2026-03-14", "max_inflight_jobs", "김서연"}
	texts := []string{
		"C: The staging DB password rotates on 2026-03-14, so update the vault.",
		"C: The setting to change is max_inflight_jobs and the new default is 275.",
		"C: 참고로 결제 모듈 담당은 김서연입니다.",
	}
	for i := range 5 {
		s, err := l.SummarizeChunk(context.Background(), filler)
		if err != nil {
			t.Fatal(err)
		}
		if i < len(texts) {
			s += "\n" + texts[i]
		}
		parts = append(parts, s)
	}
	got, err := l.MergeSummaries(context.Background(), parts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range facts {
		if !strings.Contains(got, f) {
			t.Errorf("merge %q lost %q", got, f)
		}
	}
	// The fact lines come through whole, speaker included, one a line.
	if !strings.Contains(got, texts[1]) {
		t.Errorf("merge rewrote a fact line: %q", got)
	}
	if n := estimateTokens(got); n > l.MergeTokens {
		t.Errorf("merge of %d tokens > budget %d", n, l.MergeTokens)
	}
}

func TestSelectionPrefersNovelSentences(t *testing.T) {
	fact := "The API rate limit is 1200 requests per minute per tenant."
	turns := []Turn{
		{Speaker: "A", Text: fact},
		{Speaker: "B", Text: fact},
		{Speaker: "B", Text: "We should ask Maria about it."},
	}
	// Room for two sentences: the repeat scores higher on its own, but
	// adds nothing new.
	got, err := (&Local{SummaryTokens: 34}).SummarizeChunk(context.Background(), turns)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(got, "1200") != 1 || !strings.Contains(got, "Maria") {
		t.Errorf("want the repeated fact once and the other sentence: %q", got)
	}
}

func TestSpecificityFeatures(t *testing.T) {
	tests := []struct {
		word string
		id   bool
	}{
		{"max_inflight_jobs", true}, {"T_V_", false}, {"L_C_D_", false}, {"engine.go", true},
		{"TestInvoiceDedup", true}, {"pkg/convmemory", true}, {"Process()", true}, {"hello", false}, {"end.", false},
		{"README.md", true}, {"Mr.Singh", false}, {"Dr.Kim", false},
	}
	for _, tt := range tests {
		if got := isIdentifier(tt.word); got != tt.id {
			t.Errorf("isIdentifier(%q) = %v", tt.word, got)
		}
	}
	for w, want := range map[string]bool{"김서연": true, "김서연입니다": true, "박지훈님": true, "이렇게": false, "정리했다": false, "회의": false} {
		if got := isKoreanName(w); got != want {
			t.Errorf("isKoreanName(%q) = %v", w, got)
		}
	}
}

// TestSpelledLettersAreNotNames: a transcript's spelled-out letters are an
// acronym when there are several ("T_V_") and carry nothing when one
// ("F_", a false start), so a stammer never outranks a fact.
func TestSpelledLettersAreNotNames(t *testing.T) {
	feats, _ := specificity(strings.Fields("I If you do F_ F_N_ F_ eight again, it's it'll"))
	var got []string
	for _, f := range feats {
		got = append(got, f.term)
	}
	if len(feats) != 1 || feats[0].term != "f_n_" {
		t.Errorf("features of a stammer = %v, want only the two-letter spelling f_n_", got)
	}
	fact := "The API rate limit is now 2220 requests per minute per tenant."
	line, err := (&Local{SummaryTokens: 20}).SummarizeChunk(context.Background(), []Turn{
		{Speaker: "A", Text: "I If you do F_ F_ F_ eight again, it's it'll"},
		{Speaker: "B", Text: "We'll now go to Mr.Singh and Mr.Chair."},
		{Speaker: "C", Text: fact},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, "2220") {
		t.Errorf("summary %q lost the fact to noise", line)
	}
}
