package prdoc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/llm/lenient"
	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/segment"
	"github.com/mithub/mithub/pkg/textutil"
	"github.com/mithub/mithub/pkg/tokens"
)

// ProviderOpenAI names the model-based extractor in Document.Provider.
const ProviderOpenAI = "openai"

// LLMConfig tunes the model-based extractor. Zero values take the
// defaults.
type LLMConfig struct {
	// Model is named in every request (default: the Chatter's default).
	Model string
	// Window is the model's context window in tokens (default 8192).
	Window int
	// MaxTokens is reserved for each answer (default 1024).
	MaxTokens int
	// MaxTurnRunes cuts each turn shown to the model (default 600).
	MaxTurnRunes int
	// Concurrency bounds the map requests in flight (default 4).
	Concurrency int
}

// Defaults of LLMConfig.
const (
	DefaultWindow       = 8192
	DefaultMaxTokens    = 1024
	DefaultMaxTurnRunes = 600
	DefaultConcurrency  = 4
)

func (c LLMConfig) withDefaults() LLMConfig {
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.MaxTurnRunes <= 0 {
		c.MaxTurnRunes = DefaultMaxTurnRunes
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	return c
}

// ErrBudget means the prompt instructions alone do not fit the model's
// budget, so no part of the transcript can be sent.
var ErrBudget = errors.New("prompt does not fit the token budget")

// LLM extracts a PR with a chat model, map-reduce over the agenda. It is
// safe for concurrent use if its Chatter is.
type LLM struct {
	chat    llm.Chatter
	counter tokens.Counter
	cfg     LLMConfig
	seg     meetingctx.Segmenter
}

var _ Extractor = (*LLM)(nil)

// NewLLM returns the model-based extractor. counter measures prompts
// against the budget.
func NewLLM(chat llm.Chatter, counter tokens.Counter, cfg LLMConfig) *LLM {
	return &LLM{chat: chat, counter: counter, cfg: cfg.withDefaults(), seg: segment.NewTilingSegmenter(segment.TilingConfig{})}
}

// part is one map step: consecutive agenda items (or a piece of one) and
// their transcript lines.
type part struct {
	topics []AgendaItem
	turns  []Turn
	lines  []string
}

// Extract maps every part of the meeting through the model and reduces
// the answers. A part whose answer is unusable is extracted with the cue
// rules instead. A rejected request (llm.ErrPermanent) or a prompt that
// cannot fit fails the extraction; other provider errors are returned so
// the caller can retry later.
func (x *LLM) Extract(ctx context.Context, in Input) (Document, error) {
	agenda, err := Agenda(ctx, in, x.seg)
	if err != nil {
		return Document{}, err
	}
	parts, err := x.plan(in.Turns, agenda)
	if err != nil {
		return Document{}, err
	}
	results := make([]items, len(parts))
	errs := make([]error, len(parts))
	sem := make(chan struct{}, x.cfg.Concurrency)
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			results[i], errs[i] = x.mapPart(ctx, in, agenda, p)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Document{}, err
	}
	return assemble(in, agenda, reduce(results, speakerNames(in.Turns)), ProviderOpenAI), nil
}

const mapSystem = `You read part of a meeting transcript and extract what a meeting report needs.
Lines look like "[seq] Speaker: text". The meeting may be in Korean or English; write every item in the language it was spoken in.
Answer with JSON only, no prose:
{"decisions":[{"text":"...","speaker":"...","seq":0}],
 "action_items":[{"text":"...","owner":"...","due":"...","seq":0}],
 "open_questions":[{"text":"...","asker":"...","seq":0}]}
- decisions: things the participants agreed on or settled.
- action_items: tasks someone took on or was asked to do; owner is the speaker who will do it (a name from the transcript); due is the deadline as stated, or "".
- open_questions: questions raised and not settled in this part.
- seq is the [seq] of the line the item comes from. Use [] for a list with nothing in it.`

// plan packs the agenda's transcript lines into parts whose prompts fit
// the budget: whole agenda items while they fit, a long item in pieces.
func (x *LLM) plan(turns []Turn, agenda []AgendaItem) ([]part, error) {
	avail := tokens.NewBudget(x.cfg.Window, x.cfg.MaxTokens).Available()
	room := avail - x.counter.Count(mapSystem) - 64 // topic header
	if room <= 0 {
		return nil, fmt.Errorf("window %d, reserved %d: %w", x.cfg.Window, x.cfg.MaxTokens, ErrBudget)
	}
	var (
		parts []part
		cur   part
		used  int
	)
	flush := func() {
		if len(cur.lines) > 0 {
			parts = append(parts, cur)
		}
		cur, used = part{}, 0
	}
	ti := 0
	for _, a := range agenda {
		if used > 0 && len(cur.topics) > 0 {
			// A new item starts a new part when its lines will not fit.
			if used+x.itemTokens(turns, a) > room {
				flush()
			}
		}
		cur.topics = append(cur.topics, a)
		for ; ti < len(turns) && turns[ti].Seq <= a.EndSeq; ti++ {
			t := turns[ti]
			if t.Seq < a.StartSeq {
				continue
			}
			line := x.line(t)
			n := x.counter.Count(line) + 1
			if used+n > room && len(cur.lines) > 0 {
				flush()
				cur.topics = []AgendaItem{a}
			}
			cur.lines = append(cur.lines, line)
			cur.turns = append(cur.turns, t)
			used += n
		}
	}
	flush()
	return parts, nil
}

func (x *LLM) itemTokens(turns []Turn, a AgendaItem) int {
	n := 0
	for _, t := range turns {
		if t.Seq >= a.StartSeq && t.Seq <= a.EndSeq {
			n += x.counter.Count(x.line(t)) + 1
		}
	}
	return n
}

func (x *LLM) line(t Turn) string {
	text := strings.Join(strings.Fields(markupRE.ReplaceAllString(t.Text, " ")), " ")
	return fmt.Sprintf("[%d] %s: %s", t.Seq, t.Speaker, cutRunes(text, x.cfg.MaxTurnRunes))
}

// prompt assembles a part inside the budget: the instructions and the
// topic header are required, the transcript may be cut at its end.
func (x *LLM) prompt(p part) (system, user string) {
	var head strings.Builder
	head.WriteString("Topics in this part:\n")
	for _, a := range p.topics {
		fmt.Fprintf(&head, "- %s (turns %d-%d)\n", cutRunes(a.Title, 80), a.StartSeq, a.EndSeq)
	}
	packed := tokens.Packer{Counter: x.counter, Budget: tokens.NewBudget(x.cfg.Window, x.cfg.MaxTokens).Available()}.Pack(
		[]tokens.Part{{Name: "system", Text: mapSystem}, {Name: "topics", Text: head.String()}},
		[]tokens.Part{{Name: "transcript", Text: "Transcript:\n" + strings.Join(p.lines, "\n"), Truncate: tokens.KeepHead}},
	)
	return packed.Parts[0].Text, packed.Parts[1].Text + "\n" + packed.Parts[2].Text
}

// mapReply is the JSON a map step asks for.
type mapReply struct {
	Decisions []struct {
		Text    string `json:"text"`
		Speaker string `json:"speaker"`
		Seq     int    `json:"seq"`
	} `json:"decisions"`
	ActionItems []struct {
		Text    string `json:"text"`
		Owner   string `json:"owner"`
		Due     string `json:"due"`
		DueDate string `json:"due_date"`
		Seq     int    `json:"seq"`
	} `json:"action_items"`
	OpenQuestions []struct {
		Text  string `json:"text"`
		Asker string `json:"asker"`
		Seq   int    `json:"seq"`
	} `json:"open_questions"`
}

func (x *LLM) mapPart(ctx context.Context, in Input, agenda []AgendaItem, p part) (items, error) {
	system, user := x.prompt(p)
	resp, err := x.chat.Chat(ctx, llm.ChatRequest{
		Model:     x.cfg.Model,
		Messages:  []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
		MaxTokens: x.cfg.MaxTokens,
		JSON:      true,
	})
	first, last := p.turns[0].Seq, p.turns[len(p.turns)-1].Seq
	if err != nil {
		return items{}, fmt.Errorf("extract turns %d-%d: %w", first, last, err)
	}
	var r mapReply
	if err := lenient.Decode(resp.Content, &r); err != nil {
		var te *lenient.TypeError
		if !errors.As(err, &te) {
			// Nothing usable: the cue rules cover this part.
			return cueRules.extractItems(p.turns, agenda, in.Date), nil
		}
	}
	clamp := func(seq int, text string) int {
		if seq >= first && seq <= last {
			return seq
		}
		if i := bestTurn(p.turns, text); i >= 0 {
			return p.turns[i].Seq
		}
		return min(max(seq, first), last)
	}
	speaker := func(seq int) string {
		for _, t := range p.turns {
			if t.Seq == seq {
				return t.Speaker
			}
		}
		return ""
	}
	var out items
	for _, d := range r.Decisions {
		if text := clean(d.Text); text != "" {
			seq := clamp(d.Seq, text)
			out.decisions = append(out.decisions, Decision{Text: text, Speaker: orDefault(clean(d.Speaker), speaker(seq)), Seq: seq, Topic: topicAt(agenda, seq)})
		}
	}
	for _, a := range r.ActionItems {
		text := clean(a.Text)
		if text == "" {
			continue
		}
		seq := clamp(a.Seq, text)
		due, date := clean(a.Due), ""
		if t, err := time.Parse("2006-01-02", strings.TrimSpace(a.DueDate)); err == nil {
			date = t.Format("2006-01-02")
		} else if due != "" {
			if _, d := findDue(newSentence(due), in.Date); d != "" {
				date = d
			}
		}
		out.actions = append(out.actions, ActionItem{Text: text, Owner: clean(a.Owner), Due: due, DueDate: date, Seq: seq, Topic: topicAt(agenda, seq)})
	}
	for _, q := range r.OpenQuestions {
		if text := clean(q.Text); text != "" {
			seq := clamp(q.Seq, text)
			out.questions = append(out.questions, OpenQuestion{Text: text, Asker: orDefault(clean(q.Asker), speaker(seq)), Seq: seq, Topic: topicAt(agenda, seq)})
		}
	}
	return out, nil
}

// bestTurn returns the index of the turn sharing the most terms with an
// item's text, for an item whose seq lies outside its part (models
// misnumber lines); -1 when no turn shares a term.
func bestTurn(turns []Turn, text string) int {
	want := map[string]bool{}
	for _, w := range textutil.Terms(nil, text) {
		want[w] = true
	}
	best, bestN := -1, 0
	var buf []string
	for i, t := range turns {
		buf = textutil.Terms(buf[:0], t.Text)
		n := 0
		seen := map[string]bool{}
		for _, w := range buf {
			if want[w] && !seen[w] {
				seen[w] = true
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return best
}

// reduce joins the parts' items in meeting order, drops repeats, matches
// owners to the meeting's speakers and applies the caps.
func reduce(parts []items, speakers []string) items {
	r := newReducer(speakers)
	for _, p := range parts {
		r.add(p)
	}
	return r.sink.items()
}

// reducer joins parts' items as they come, in meeting order.
type reducer struct {
	speakers []string
	sink     *itemSink
}

// cueRules extracts the items of a part whose answer cannot be used.
var cueRules = NewLocal()

// reduceCaps are the caps of the model's joined lists: a model's items
// are taken as precise, so they are capped less than the cue rules', and
// kept in score order (CueOnly: no decision picker).
var reduceCaps = &Local{opts: LocalOptions{MaxDecisions: 30, MaxActionItems: 30, MaxOpenQuestions: 20, CueOnly: true}}

func newReducer(speakers []string) *reducer {
	return &reducer{speakers: speakers, sink: reduceCaps.newItemSink(speakers)}
}

func (r *reducer) add(p items) {
	for _, d := range p.decisions {
		r.sink.ds.add(d, d.Seq, 1)
	}
	for _, a := range p.actions {
		a.Owner = matchSpeaker(a.Owner, r.speakers)
		r.sink.as.add(a, a.Seq, 1)
	}
	for _, q := range p.questions {
		r.sink.qs.add(q, q.Seq, 1)
	}
}

// matchSpeaker maps a model-written owner onto a speaker's name when one
// matches (case-insensitively, or as a word of the name); otherwise the
// owner stays as written.
func matchSpeaker(owner string, speakers []string) string {
	o := strings.ToLower(strings.TrimSpace(owner))
	if o == "" {
		return ""
	}
	for _, s := range speakers {
		if strings.ToLower(s) == o {
			return s
		}
	}
	for _, s := range speakers {
		for _, w := range strings.Fields(strings.ToLower(s)) {
			if w == o || strings.HasPrefix(o, w) && len([]rune(w)) >= 2 {
				return s
			}
		}
	}
	return owner
}

func clean(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "")), " ")
	return cutRunes(s, MaxItemRunes)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
