package tokens_test

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/qmsum"
	"github.com/mithub/mithub/pkg/qmsum/qmsumtest"
	"github.com/mithub/mithub/pkg/tokens"
)

func qmsumTexts(t testing.TB, split string, limit int) []string {
	t.Helper()
	dir := qmsumtest.Dir(t)
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

var encodings = []string{tokens.CL100K, tokens.O200K}

func counters(t testing.TB, encoding string) (fast, ref tokens.Counter) {
	t.Helper()
	fast, err := tokens.ForEncoding(encoding)
	if err != nil {
		t.Fatal(err)
	}
	ref, err = tokens.ReferenceCounter(encoding)
	if err != nil {
		t.Fatal(err)
	}
	return fast, ref
}

// The fast counters give tiktoken-go's counts on every QMSum val turn.
func TestFastMatchesReferenceOnQMSum(t *testing.T) {
	texts := qmsumTexts(t, "val", 0)
	for _, enc := range encodings {
		t.Run(enc, func(t *testing.T) {
			t.Parallel()
			fast, ref := counters(t, enc)
			for _, s := range texts {
				if got, want := fast.Count(s), ref.Count(s); got != want {
					t.Fatalf("Count(%q) = %d, reference %d", s, got, want)
				}
			}
		})
	}
}

var tricky = []string{
	"", " ", "  ", "\n", "\r\n", " \n ", "a\n\n b", "hello  world", "hello \n", "x   ", "\t\tx", " \u00a0x",
	"I'm we'RE they'll it'S 'd 'x ''s", "$100,000.50 1234567", "٣٤٥ ⅷ ½", "😀😀 a😀b", "'hello", "don't\n'Ve",
	"안녕하세요, 회의를 시작하겠습니다.", "밋허브야 지난주 결정사항 알려줘", "Hey MitHub — 다음 분기 OKR은?",
	"中文测试 日本語テスト", "e\u0301 combining", "line1\r\nline2\rline3", "a\u2028b\u2029c", "  ...  !!!\n\n",
	" ?!\n\r\n", "tab\tsep\tvalues", "ﬁnance ß", "x\u200by", "\u3000全角", "ab12c345d", "#hashtag @user", "a/b\\c",
	// Case and mark boundaries that only o200k_base distinguishes.
	"HTTPServer", "McDonald's", "ÉCOLE", "École", "iPhone", "camelCaseWord", "XMLHttpRequest", "ABCdef'LL",
	"DON'T WE'RE O'NEIL'S", "ǅungla ǈ", "ʰello ʰ", "コーヒー", "\u0301", " \u0301", "!\u0301a", "A\u0301B\u0301c",
	"\u0915\u093f\u0924\u093e\u092c", "Ω\u0301ΣΑ", "a/b//c\n/d", "!\n/x", "path/to/file.go", "https://mithub.dev/a?b=1",
	"API를 GPT-4o는 LLM이 PR을", "Q3 매출 1,234억원 (YoY +12.5%)", "회의록.md에 TODO: 정리", "'s 'S 'Re 'rE",
	"\t'll", " 'll", "x\r\n/", "ǅ'S", "ĲSSEL", "ﬀ", "ＡＢＣａｂｃ", "Ⅻ ⅻ", "ᾈᾀ",
}

func TestFastMatchesReferenceOnTrickyText(t *testing.T) {
	for _, enc := range encodings {
		t.Run(enc, func(t *testing.T) {
			fast, ref := counters(t, enc)
			for _, s := range tricky {
				if got, want := fast.Count(s), ref.Count(s); got != want {
					t.Errorf("Count(%q) = %d, reference %d", s, got, want)
				}
			}
		})
	}
}

// Random strings drawn from an alphabet of the character classes the
// pre-tokenizers distinguish: ASCII and non-ASCII upper, lower, title and
// modifier letters, other letters, marks, numbers, whitespace, newlines,
// slashes and contraction letters.
func TestFastMatchesReferenceOnRandomText(t *testing.T) {
	alphabet := []rune("aZ'sStTrReEvVmMlLdD 09٣½\n\r\t\u00a0\u3000.,!?$-/😀한국어中é\u0301\u200b_" +
		"ÉΣσǅʰー\u093f\u0300ⅫＡｂ")
	for _, enc := range encodings {
		t.Run(enc, func(t *testing.T) {
			t.Parallel()
			fast, ref := counters(t, enc)
			rng := rand.New(rand.NewPCG(42, 7))
			for range 5000 {
				var b strings.Builder
				for range rng.IntN(40) {
					b.WriteRune(alphabet[rng.IntN(len(alphabet))])
				}
				s := b.String()
				if got, want := fast.Count(s), ref.Count(s); got != want {
					t.Fatalf("Count(%q) = %d, reference %d", s, got, want)
				}
			}
		})
	}
}

func FuzzFastMatchesReference(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	type pair struct{ fast, ref tokens.Counter }
	var pairs []pair
	for _, enc := range encodings {
		fast, ref := counters(f, enc)
		pairs = append(pairs, pair{fast, ref})
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range pairs {
			if got, want := p.fast.Count(s), p.ref.Count(s); got != want {
				t.Fatalf("%s: Count(%q) = %d, reference %d", p.fast.Encoding(), s, got, want)
			}
		}
	})
}

func BenchmarkCountQMSum(b *testing.B) {
	texts := qmsumTexts(b, "val", 5000)
	for _, enc := range encodings {
		fast, ref := counters(b, enc)
		for _, bc := range []struct {
			name string
			c    tokens.Counter
		}{{"fast", fast}, {"tiktoken-go", ref}} {
			b.Run(enc+"/"+bc.name, func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					bc.c.Count(texts[i%len(texts)])
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "utterances/s")
			})
		}
	}
}
