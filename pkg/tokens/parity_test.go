package tokens_test

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/tokens"
)

func qmsumTexts(t testing.TB, split string, limit int) []string {
	t.Helper()
	dir, err := qmsum.DataDir()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, split, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no QMSum files in %s/%s", dir, split)
	}
	var out []string
	for _, f := range files {
		m, err := qmsum.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, turn := range m.Turns {
			out = append(out, turn.Content)
		}
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out
}

func counters(t testing.TB) (fast, ref tokens.Counter) {
	t.Helper()
	fast, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	ref, err = tokens.ReferenceCounter(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	return fast, ref
}

// The fast counter gives tiktoken-go's counts on every QMSum val turn.
func TestFastMatchesReferenceOnQMSum(t *testing.T) {
	fast, ref := counters(t)
	for _, s := range qmsumTexts(t, "val", 0) {
		if got, want := fast.Count(s), ref.Count(s); got != want {
			t.Fatalf("Count(%q) = %d, reference %d", s, got, want)
		}
	}
}

var tricky = []string{
	"", " ", "  ", "\n", "\r\n", " \n ", "a\n\n b", "hello  world", "hello \n", "x   ", "\t\tx", " \u00a0x",
	"I'm we'RE they'll it'S 'd 'x ''s", "$100,000.50 1234567", "٣٤٥ ⅷ ½", "😀😀 a😀b", "'hello", "don't\n'Ve",
	"안녕하세요, 회의를 시작하겠습니다.", "밋허브야 지난주 결정사항 알려줘", "Hey MitHub — 다음 분기 OKR은?",
	"中文测试 日本語テスト", "e\u0301 combining", "line1\r\nline2\rline3", "a\u2028b\u2029c", "  ...  !!!\n\n",
	" ?!\n\r\n", "tab\tsep\tvalues", "ﬁnance ß", "x\u200by", "\u3000全角", "ab12c345d", "#hashtag @user", "a/b\\c",
}

func TestFastMatchesReferenceOnTrickyText(t *testing.T) {
	fast, ref := counters(t)
	for _, s := range tricky {
		if got, want := fast.Count(s), ref.Count(s); got != want {
			t.Errorf("Count(%q) = %d, reference %d", s, got, want)
		}
	}
}

// Random strings drawn from an alphabet of the character classes the
// pre-tokenizer distinguishes.
func TestFastMatchesReferenceOnRandomText(t *testing.T) {
	fast, ref := counters(t)
	alphabet := []rune("aZ'sStTrReEvVmMlLdD 09٣½\n\r\t\u00a0\u3000.,!?$-/😀한국어中é\u0301\u200b_")
	rng := rand.New(rand.NewPCG(42, 7))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := fast.Count(s), ref.Count(s); got != want {
			t.Fatalf("Count(%q) = %d, reference %d", s, got, want)
		}
	}
}

func FuzzFastMatchesReference(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	fast, ref := counters(f)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := fast.Count(s), ref.Count(s); got != want {
			t.Fatalf("Count(%q) = %d, reference %d", s, got, want)
		}
	})
}

func BenchmarkCountQMSum(b *testing.B) {
	texts := qmsumTexts(b, "val", 5000)
	fast, ref := counters(b)
	for _, bc := range []struct {
		name string
		c    tokens.Counter
	}{{"fast", fast}, {"tiktoken-go", ref}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				bc.c.Count(texts[i%len(texts)])
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "utterances/s")
		})
	}
}
