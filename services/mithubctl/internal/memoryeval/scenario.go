package memoryeval

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/qmsum"
)

// Fact is a planted fact: a sentence, and the values a question about it
// asks for (the fact is in a text when every key is).
type Fact struct {
	Text string   `json:"text"`
	Keys []string `json:"keys"`
	// Lang is "en" or "ko"; Part is "early", "middle" or "late".
	Lang string `json:"lang"`
	Part string `json:"part"`
	// Turn is the index of the turn that holds it.
	Turn int `json:"turn"`
	// Question asks for the fact in its language, without its keys'
	// values: what a person would type into memory_search.
	Question string `json:"question"`
}

// In reports whether text holds every key of f (case-insensitive).
func (f Fact) In(text string) bool {
	l := strings.ToLower(text)
	for _, k := range f.Keys {
		if !strings.Contains(l, strings.ToLower(k)) {
			return false
		}
	}
	return true
}

// Message is one turn of a scenario.
type Message struct {
	Speaker string
	Text    string
}

// Scenario is a conversation with planted facts.
type Scenario struct {
	Messages []Message
	Facts    []Fact
}

// template writes one fact from random values.
type template struct {
	lang  string
	write func(r *rand.Rand) (text string, keys []string, question string)
}

var (
	firstNames = []string{"Maya", "Daniel", "Priya", "Lucas", "Hannah", "Omar", "Elena", "Victor", "Nora", "Tobias", "Ines", "Felix"}
	lastNames  = []string{"Okafor", "Lindqvist", "Moreau", "Tanaka", "Brennan", "Kowalski", "Haddad", "Ferreira", "Novak", "Castillo"}
	koFamily   = []string{"김", "이", "박", "최", "정", "강", "조", "윤", "장", "한"}
	koGiven    = []string{"서연", "지훈", "민준", "하은", "도윤", "수아", "예준", "지우", "현우", "유진", "태희", "은서"}
	modules    = []string{"billing", "search", "ingest", "auth", "export", "notifications"}
	nouns      = []string{"Retry", "Invoice", "Session", "Upload", "Token", "Ledger", "Webhook", "Snapshot"}
	weekdays   = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}
	koDays     = []string{"월요일", "화요일", "수요일", "목요일", "금요일"}
	months     = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func isoDate(r *rand.Rand) string {
	return fmt.Sprintf("2026-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))
}

func enName(r *rand.Rand) string { return pick(r, firstNames) + " " + pick(r, lastNames) }
func koName(r *rand.Rand) string { return pick(r, koFamily) + pick(r, koGiven) }

// templates are facts of the kinds people ask about later: owners,
// dates, numbers with their reasons, identifiers, file and function
// names, decisions.
var templates = []template{
	{"en", func(r *rand.Rand) (string, []string, string) {
		d := isoDate(r)
		return fmt.Sprintf("By the way, the staging DB password rotates on %s, so update the vault before then.", d), []string{d}, "When does the staging DB password rotate?"
	}},
	{"en", func(r *rand.Rand) (string, []string, string) {
		n, m := enName(r), pick(r, modules)
		return fmt.Sprintf("From now on %s owns the %s module, including its on-call rota.", n, m), []string{n, m}, fmt.Sprintf("Who owns the %s module now?", m)
	}},
	{"en", func(r *rand.Rand) (string, []string, string) {
		n := 100 * (3 + r.IntN(60))
		return fmt.Sprintf("We decided to set the batch size to %d because the queue kept timing out.", n), []string{fmt.Sprint(n)}, "What batch size did we decide on?"
	}},
	{"en", func(r *rand.Rand) (string, []string, string) {
		fn := "Test" + pick(r, nouns) + pick(r, []string{"Expiry", "Rollback", "Dedup", "Backoff"})
		file := strings.ToLower(pick(r, nouns)) + "_" + pick(r, []string{"store", "client", "worker"}) + ".go"
		return fmt.Sprintf("The flaky one is %s in %s, it fails about once a week.", fn, file), []string{fn, file}, "Which test is flaky, and in which file?"
	}},
	{"en", func(r *rand.Rand) (string, []string, string) {
		n := 60 * (2 + r.IntN(40))
		return fmt.Sprintf("The API rate limit is now %d requests per minute per tenant.", n), []string{fmt.Sprint(n)}, "What is the API rate limit per tenant?"
	}},
	{"en", func(r *rand.Rand) (string, []string, string) {
		v := fmt.Sprintf("v%d.%d.%d", 1+r.IntN(4), r.IntN(20), r.IntN(10))
		return fmt.Sprintf("We agreed that release %s ships on %s after the security review.", v, pick(r, weekdays)), []string{v}, "Which release ships after the security review?"
	}},
	{"en", func(r *rand.Rand) (string, []string, string) {
		flag := pick(r, []string{"max_inflight_jobs", "retry_backoff_ms", "cache_ttl_seconds", "export_page_size"})
		n := 5 * (2 + r.IntN(200))
		return fmt.Sprintf("The setting to change is %s, and the new default is %d.", flag, n), []string{flag, fmt.Sprint(n)}, "Which setting do we change, and to what default?"
	}},
	{"en", func(r *rand.Rand) (string, []string, string) {
		n, mo := enName(r), pick(r, months)
		return fmt.Sprintf("%s will present the roadmap to the board in %s.", n, mo), []string{n, mo}, "Who presents the roadmap to the board, and when?"
	}},
	{"ko", func(r *rand.Rand) (string, []string, string) {
		n := koName(r)
		return fmt.Sprintf("참고로 결제 모듈 담당은 %s입니다.", n), []string{n}, "결제 모듈 담당자는 누구인가요?"
	}},
	{"ko", func(r *rand.Rand) (string, []string, string) {
		d := fmt.Sprintf("%d월 %d일", 1+r.IntN(12), 1+r.IntN(28))
		return fmt.Sprintf("배포 동결은 %s부터 시작하기로 결정했습니다.", d), []string{d}, "배포 동결은 언제부터 시작하나요?"
	}},
	{"ko", func(r *rand.Rand) (string, []string, string) {
		ip := fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), 2+r.IntN(250))
		return fmt.Sprintf("스테이징 서버 주소는 %s로 변경했습니다.", ip), []string{ip}, "스테이징 서버 주소가 뭐였죠?"
	}},
	{"ko", func(r *rand.Rand) (string, []string, string) {
		n := koName(r)
		return fmt.Sprintf("고객 인터뷰 일정은 %s 님이 맡기로 했습니다.", n), []string{n}, "고객 인터뷰 일정은 누가 맡았나요?"
	}},
	{"ko", func(r *rand.Rand) (string, []string, string) {
		n := 100 * (5 + r.IntN(90))
		return fmt.Sprintf("다음 분기 클라우드 예산 한도는 %d만 원으로 확정했습니다.", n), []string{fmt.Sprintf("%d만", n)}, "다음 분기 클라우드 예산 한도는 얼마인가요?"
	}},
	{"ko", func(r *rand.Rand) (string, []string, string) {
		n := 7 * (2 + r.IntN(20))
		return fmt.Sprintf("로그 보관 기간은 %d일로 합의했어요.", n), []string{fmt.Sprintf("%d일", n)}, "로그 보관 기간은 며칠로 정했나요?"
	}},
	{"ko", func(r *rand.Rand) (string, []string, string) {
		tbl := pick(r, []string{"search_index", "user_sessions", "audit_events", "billing_ledger"})
		return fmt.Sprintf("%s 테이블 마이그레이션은 %s까지 끝내야 합니다.", tbl, pick(r, koDays)), []string{tbl}, "어느 테이블 마이그레이션을 끝내야 하나요?"
	}},
}

// NumFacts is the number of facts planted in a scenario.
var NumFacts = len(templates)

// koLeads open a Korean turn that holds a fact.
var koLeads = []string{"잠깐 다른 얘기인데요.", "회의 끝나기 전에 하나만 정리할게요.", "아 그리고 공유드릴 게 있어요.", "메모해 두세요."}

// Generate builds a conversation of at least size tokens (count counts
// a turn as "speaker: text") from corpus turns, starting at a seeded
// offset, with every template's fact planted once: the facts in a random
// order at evenly spread positions (a third each early, middle and late),
// English ones appended to a corpus turn, Korean ones as a turn of their
// own.
func Generate(corpus []qmsum.Turn, size int, seed uint64, count func(string) int) (Scenario, error) {
	if len(corpus) == 0 {
		return Scenario{}, fmt.Errorf("memoryeval: empty corpus")
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var sc Scenario
	total := 0
	for i := r.IntN(len(corpus)); total < size; i++ {
		t := corpus[i%len(corpus)]
		if strings.TrimSpace(t.Content) == "" {
			continue
		}
		// A role is at most convmemory.MaxRoleRunes long; committee
		// transcripts name speakers with their whole office.
		speaker := string([]rune(t.Speaker)[:min(len([]rune(t.Speaker)), convmemory.MaxRoleRunes)])
		sc.Messages = append(sc.Messages, Message{Speaker: speaker, Text: t.Content})
		total += count(speaker + ": " + t.Content)
	}
	order := r.Perm(len(templates))
	n := len(sc.Messages)
	for k, ti := range order {
		tp := templates[ti]
		text, keys, question := tp.write(r)
		// Position k of NumFacts, jittered within its slot, never the
		// first or last turn.
		slot := float64(n) / float64(len(order))
		at := min(max(int(float64(k)*slot+r.Float64()*slot), 1), n-2)
		part := []string{"early", "middle", "late"}[min(3*k/len(order), 2)]
		f := Fact{Text: text, Keys: keys, Lang: tp.lang, Part: part, Turn: at, Question: question}
		if tp.lang == "ko" {
			sc.Messages[at] = Message{Speaker: sc.Messages[at].Speaker, Text: pick(r, koLeads) + " " + text}
		} else {
			sc.Messages[at].Text = strings.TrimSpace(sc.Messages[at].Text) + " " + text
		}
		sc.Facts = append(sc.Facts, f)
	}
	return sc, nil
}
