// Package wakeword finds the bot's name addressed to it in a transcript
// line, in Korean and English: "미트허브 …", "헤이 밋허브 …", "밋허브야 …",
// "MitHub, …", "Hey Mit Hub …", "OK 미트 허브 …".
//
// Text is normalised (lower case; Hangul syllables decomposed into jamo)
// and matched on whole words, so spacing does not matter ("미트 허브",
// "미트허브"). A heard name may differ from a configured one by a few
// edits, but only edits a recogniser makes when it hears the name itself:
// vowels inserted, deleted or swapped ("mithab", "미트허부"), and a
// Korean final consonant swapped for another that sounds the same
// ("밑허브" for "밋허브"). A consonant is never changed, so a real word
// (GitHub, "mid hub", 미트볼, 깃허브) can not become the name.
//
// A name counts when it is addressed: after hey / 헤이 / OK / 오케이,
// with the vocative 야 / 아 ("밋허브야"), or — a bare name — at the start
// of the line followed by a pause (a comma, a full stop, the end of the
// line) or a question. "MitHub is great" and "the mithub repo" are not
// addressed to the bot.
//
// The realtime worker decides with it which lines are questions; agent-api
// keeps those lines out of the evidence of answers.
package wakeword

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// Environment variables.
const (
	// EnvWords is a comma-separated list of the bot's names. A "hey",
	// "헤이", "OK" or "오케이" in front and a "야"/"아" behind are accepted
	// with every name, and stripped from configured entries.
	EnvWords = "MITHUB_WAKE_WORDS"
	// EnvMaxEdits bounds the vowel/jamo edits between a heard and a
	// configured name (0 to 5).
	EnvMaxEdits = "MITHUB_WAKE_MAX_EDITS"
)

// DefaultNames are matched when MITHUB_WAKE_WORDS is unset.
var DefaultNames = []string{"미트허브", "밋허브", "미트 허브", "mithub", "mit hub"}

// DefaultMaxEdits is the edit budget when MITHUB_WAKE_MAX_EDITS is unset.
const DefaultMaxEdits = 1

// Prefixes may stand before a name; they make any mention an address.
var Prefixes = []string{"hey", "헤이", "ok", "okay", "오케이", "hi", "하이"}

// fillers may precede a bare name at the start of a line.
var fillers = map[string]bool{}

func init() {
	for _, f := range []string{"음", "어", "아", "저", "저기", "um", "uh", "so", "oh"} {
		fillers[string(jamo(f))] = true
	}
}

// Config is a matcher's configuration.
type Config struct {
	// Names are the bot's names; DefaultNames when empty.
	Names []string
	// MaxEdits is the edit budget; names shorter than 4 letters allow
	// none.
	MaxEdits int
}

// Matcher finds addressed names. It is safe for concurrent use.
type Matcher struct {
	// id tells matchers apart in caches of their results (ID).
	id    uint32
	names [][]rune // normalised, without spaces
	// starts are the consonant skeletons a match can start with: a
	// name's, with a prefix glued in front and a vocative behind. A
	// word's skeleton must begin one of them (consonants are never
	// edited), which rules out almost every word at once.
	starts   map[rune][][]rune // by first rune
	words    []int             // words of each name
	raw      []string
	prefixes [][]rune
	maxEdits int
}

// New compiles cfg.
func New(cfg Config) (*Matcher, error) {
	if cfg.MaxEdits < 0 || cfg.MaxEdits > 5 {
		return nil, fmt.Errorf("wake words: max edits %d is outside [0, 5]", cfg.MaxEdits)
	}
	names := cfg.Names
	if len(names) == 0 {
		names = DefaultNames
	}
	m := &Matcher{maxEdits: cfg.MaxEdits, starts: map[rune][][]rune{}, id: matcherIDs.Add(1)}
	for _, p := range Prefixes {
		m.prefixes = append(m.prefixes, jamo(p))
	}
	seen := map[string]bool{}
	for _, n := range names {
		ws := splitWords(n)
		// A configured "hey mithub" or "밋허브야" is the name mithub / 밋허브.
		if len(ws) > 1 && m.isPrefix(ws[0].norm) {
			ws = ws[1:]
		}
		var key []rune
		for _, w := range ws {
			key = append(key, w.norm...)
		}
		if k, ok := stripVocative(key); ok && len(ws) == 1 && len(key) > 4 && isHangulJamo(key[0]) {
			key = k
		}
		if len(key) == 0 {
			return nil, fmt.Errorf("wake words: %q has no letters", n)
		}
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		k := skeleton(key)
		if len(k) == 0 {
			return nil, fmt.Errorf("wake words: %q has no consonant", n)
		}
		for _, v := range [][]rune{k, append(k[:len(k):len(k)], 0x110B)} {
			m.starts[v[0]] = append(m.starts[v[0]], v)
			for _, px := range m.prefixes {
				st := append(skeleton(px), v...)
				m.starts[st[0]] = append(m.starts[st[0]], st)
			}
		}
		m.names = append(m.names, key)
		m.words = append(m.words, len(ws))
		m.raw = append(m.raw, strings.TrimSpace(n))
	}
	return m, nil
}

// MustDefault is the matcher of the default names.
func MustDefault() *Matcher {
	m, err := New(Config{MaxEdits: DefaultMaxEdits})
	if err != nil {
		panic(err)
	}
	return m
}

// FromEnv reads MITHUB_WAKE_WORDS and MITHUB_WAKE_MAX_EDITS through
// lookup (os.LookupEnv).
func FromEnv(lookup func(string) (string, bool)) (*Matcher, error) {
	cfg := Config{MaxEdits: DefaultMaxEdits}
	if v, ok := lookup(EnvWords); ok && strings.TrimSpace(v) != "" {
		cfg.Names = ParseList(v)
	}
	if v, ok := lookup(EnvMaxEdits); ok && strings.TrimSpace(v) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an integer", EnvMaxEdits, v)
		}
		cfg.MaxEdits = n
	}
	return New(cfg)
}

// ParseList splits a comma-separated list, dropping empty entries.
func ParseList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// matcherIDs numbers matchers from 1.
var matcherIDs atomic.Uint32

// ID is a number unique to this matcher in the process (never 0), for
// caches that keep a text's Find result beside the text.
func (m *Matcher) ID() uint32 { return m.id }

// Names returns the configured names.
func (m *Matcher) Names() []string { return append([]string(nil), m.raw...) }

// How says why a match is addressed to the bot.
type How string

// Ways a name is addressed.
const (
	ByPrefix   How = "prefix"   // hey / 헤이 / OK / 오케이 in front
	ByVocative How = "vocative" // 야 / 아 behind
	ByPosition How = "position" // bare, at the start, before a pause or a question
)

// Match is a name addressed to the bot.
type Match struct {
	// Name is the configured name matched.
	Name string
	// Start and End are the byte offsets in the text of the match,
	// prefix and vocative included.
	Start, End int
	// Rest is the text after the match, without leading spaces and
	// punctuation: the question, or "" after a bare wake word.
	Rest string
	// Distance is the number of edits from the configured name.
	Distance int
	How      How
}

// Find returns the first addressed name in text.
func (m *Matcher) Find(text string) (Match, bool) {
	ws := splitWords(text)
	for i := range ws {
		if mt, ok := m.at(text, ws, i); ok {
			return mt, true
		}
	}
	return Match{}, false
}

// Contains reports whether text addresses the bot.
func (m *Matcher) Contains(text string) bool {
	_, ok := m.Find(text)
	return ok
}

// at tries a match starting at word i.
func (m *Matcher) at(text string, ws []word, i int) (Match, bool) {
	// Consonants are never edited: a word whose consonants do not begin
	// a name's can not start a match.
	// (A word of vowels only starts no match: the match starts at the
	// next word.)
	first, ok := firstConsonant(ws[i].norm)
	if !ok || !slices.ContainsFunc(m.starts[first], func(st []rune) bool { return skeletonStarts(st, ws[i].norm) }) {
		return Match{}, false
	}
	prefixed := i > 0 && m.isPrefix(ws[i-1].norm) && !strings.ContainsAny(ws[i-1].sep, ".!?")
	start := ws[i].start
	if prefixed {
		start = ws[i-1].start
	}
	best, found := Match{}, false
	for p, key := range m.names {
		limit := m.allowed(len(key))
		var heard []rune
		for j := i; j < len(ws) && j-i <= m.words[p]; j++ {
			heard = append(heard, ws[j].norm...)
			// A prefix written together with the name: "헤이밋허브".
			cands := []cand{{heard, prefixed, false}}
			if j == i && !prefixed {
				for _, px := range m.prefixes {
					if len(heard) > len(px) && hasPrefix(heard, px) {
						cands = append(cands, cand{heard[len(px):], true, false})
					}
				}
			}
			for _, c := range cands {
				if v, ok := stripVocative(c.runes); ok && isHangulJamo(key[0]) {
					cands = append(cands, cand{v, c.prefixed, true})
				}
			}
			for _, c := range cands {
				if len(c.runes) > len(key)+limit || len(c.runes)+limit < len(key) {
					continue
				}
				d := distance(c.runes, key, limit)
				if d > limit || (found && d >= best.Distance) {
					continue
				}
				how := ByPosition
				switch {
				case c.prefixed:
					how = ByPrefix
				case c.vocative:
					how = ByVocative
				}
				mt := Match{Name: m.raw[p], Start: start, End: ws[j].end, Rest: rest(text, ws[j].end), Distance: d, How: how}
				if how == ByPosition && !addressed(ws, i, j, mt.Rest) {
					continue
				}
				best, found = mt, true
			}
		}
	}
	return best, found
}

type cand struct {
	runes    []rune
	prefixed bool
	vocative bool
}

// addressed reports whether a bare name spanning words i..j is spoken to
// the bot: first in the line (after fillers), then a pause or a question.
func addressed(ws []word, i, j int, rest string) bool {
	for k := range i {
		if !fillers[string(ws[k].norm)] {
			return false
		}
	}
	if j == len(ws)-1 {
		return true // the whole line is the name: a question follows
	}
	if strings.ContainsAny(ws[j].sep, ",.!?…:;—–-~") {
		return true
	}
	return isQuestion(rest)
}

// leadWords start a question (English); a Korean question has a word
// starting with one of koStems (anywhere: Korean puts them mid-sentence)
// or its last word ends with one of koEnds (a question or request).
var (
	leadWords       = map[string]bool{}
	koStems, koEnds [][]rune
)

func init() {
	for _, w := range []string{
		"what", "whats", "when", "where", "who", "whom", "whose", "why", "how", "which",
		// Auxiliaries ("is", "did") are left out: "MitHub is great" is
		// not a question; "MitHub, is it done?" has its pause and mark.
		"tell", "summarize", "summarise", "give", "list", "remind", "recap", "show", "explain",
	} {
		leadWords[string(jamo(w))] = true
	}
	for _, w := range []string{
		"뭐", "무엇", "무슨", "언제", "어디", "누구", "누가", "왜", "어떻게", "어떤", "어땠", "몇", "얼마",
		"알려", "요약", "정리", "말해", "설명", "찾아", "보여",
	} {
		koStems = append(koStems, jamo(w))
	}
	for _, w := range []string{"줘", "줄래", "까", "니", "냐", "나요"} {
		koEnds = append(koEnds, jamo(w))
	}
}

// isQuestion: the text ends with a question mark, starts with an English
// question word, or reads as a Korean question or request.
func isQuestion(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") {
		return true
	}
	ws := splitWords(s)
	for i, w := range ws {
		if i == 0 && leadWords[string(w.norm)] {
			return true
		}
		for _, st := range koStems {
			if hasPrefix(w.norm, st) {
				return true
			}
		}
	}
	if n := len(ws); n > 0 {
		last := ws[n-1].norm
		for _, e := range koEnds {
			if len(last) > len(e) && string(last[len(last)-len(e):]) == string(e) {
				return true
			}
		}
	}
	return false
}

func (m *Matcher) isPrefix(w []rune) bool {
	for _, p := range m.prefixes {
		if string(p) == string(w) {
			return true
		}
	}
	return false
}

// allowed is the edit budget of a name of n letters (jamo).
func (m *Matcher) allowed(n int) int {
	if n < 4 {
		return 0
	}
	return m.maxEdits
}

// word is one word of a text: normalised letters, its byte span in the
// original and the separator text after it.
type word struct {
	norm       []rune
	start, end int
	sep        string
}

// splitWords splits text into words of letters and digits, normalised.
func splitWords(text string) []word {
	out := make([]word, 0, len(text)/6+1)
	// One buffer holds every word's letters; bounds[k] are word k's.
	buf := make([]rune, 0, len(text))
	bounds := make([][2]int, 0, cap(out))
	start := -1
	for i, r := range text {
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || isHangulJamo(r)) {
			if start < 0 {
				start = i
				bounds = append(bounds, [2]int{len(buf), 0})
				if n := len(out); n > 0 {
					out[n-1].sep = text[out[n-1].end:i]
				}
			}
			buf = appendNorm(buf, r)
			continue
		}
		if start >= 0 {
			bounds[len(bounds)-1][1] = len(buf)
			out = append(out, word{start: start, end: i})
			start = -1
		}
	}
	if start >= 0 {
		bounds[len(bounds)-1][1] = len(buf)
		out = append(out, word{start: start, end: len(text)})
	}
	for k := range out {
		a, b := bounds[k][0], bounds[k][1]
		out[k].norm = buf[a:b:b]
	}
	if n := len(out); n > 0 && out[n-1].sep == "" {
		out[n-1].sep = text[out[n-1].end:]
	}
	return out
}

// Hangul syllable arithmetic (Unicode 3.12).
const (
	sBase, sCount    = 0xAC00, 11172
	lBase, vBase     = 0x1100, 0x1161
	tBase            = 0x11A7
	vCount, tCount   = 21, 28
	nCount           = vCount * tCount
	vFirst, vLast    = 0x1161, 0x1175
	jamoFirst, jamoZ = 0x1100, 0x11FF
)

// appendNorm appends r lower-cased, a Hangul syllable as its jamo.
func appendNorm(dst []rune, r rune) []rune {
	if r >= sBase && r < sBase+sCount {
		i := r - sBase
		dst = append(dst, lBase+i/nCount, vBase+(i%nCount)/tCount)
		if t := i % tCount; t != 0 {
			dst = append(dst, tBase+t)
		}
		return dst
	}
	return append(dst, unicode.ToLower(r))
}

func jamo(s string) []rune {
	var out []rune
	for _, w := range splitWords(s) {
		out = append(out, w.norm...)
	}
	return out
}

func isHangulJamo(r rune) bool { return r >= jamoFirst && r <= jamoZ }

// stripVocative removes a trailing 야 or 아 (ㅇ + ㅑ/ㅏ, no final).
func stripVocative(rs []rune) ([]rune, bool) {
	n := len(rs)
	if n > 2 && rs[n-2] == 0x110B && (rs[n-1] == 0x1163 || rs[n-1] == 0x1161) {
		return rs[:n-2], true
	}
	return nil, false
}

func hasPrefix(rs, p []rune) bool {
	if len(rs) < len(p) {
		return false
	}
	for i := range p {
		if rs[i] != p[i] {
			return false
		}
	}
	return true
}

// rest is text after byte offset end without leading spaces and
// punctuation.
func rest(text string, end int) string {
	s := strings.TrimLeftFunc(text[end:], func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r)) || r == utf8.RuneError
	})
	return strings.TrimSpace(s)
}

// skeleton is rs without vowels, the same-sounding Hangul finals as one.
func skeleton(rs []rune) []rune {
	out := make([]rune, 0, len(rs))
	for _, r := range rs {
		switch {
		case isVowel(r):
		case tFinal(r):
			out = append(out, 0x11AE)
		default:
			out = append(out, r)
		}
	}
	return out
}

// firstConsonant is the first rune of w's skeleton.
func firstConsonant(w []rune) (rune, bool) {
	for _, r := range w {
		switch {
		case isVowel(r):
		case tFinal(r):
			return 0x11AE, true
		default:
			return r, true
		}
	}
	return 0, false
}

// skeletonStarts reports whether w's skeleton is a prefix of st.
func skeletonStarts(st, w []rune) bool {
	j := 0
	for _, r := range w {
		switch {
		case isVowel(r):
			continue
		case tFinal(r):
			r = 0x11AE
		}
		if j >= len(st) || st[j] != r {
			return false
		}
		j++
	}
	return true
}

// isVowel: a Latin vowel or a Hangul medial vowel.
func isVowel(r rune) bool {
	switch r {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return r >= vFirst && r <= vLast
}

// tFinal: Hangul finals that all sound as [t] at the end of a syllable
// (ㄷ ㅅ ㅆ ㅈ ㅊ ㅌ ㅎ).
func tFinal(r rune) bool {
	switch r {
	case 0x11AE, 0x11BA, 0x11BB, 0x11BD, 0x11BE, 0x11C0, 0x11C2:
		return true
	}
	return false
}

// inf stands for an edit that is not allowed.
const inf = 1 << 20

// subCost is the cost of hearing a where b was said.
func subCost(a, b rune) int {
	switch {
	case a == b:
		return 0
	case isVowel(a) && isVowel(b):
		return 1
	case tFinal(a) && tFinal(b):
		return 1
	}
	return inf
}

// indelCost is the cost of inserting or deleting r: only vowels.
func indelCost(r rune) int {
	if isVowel(r) {
		return 1
	}
	return inf
}

// distance is the edit distance between heard and name where only vowels
// are inserted, deleted or substituted and only same-sounding Hangul
// finals substituted; anything else costs more than limit.
func distance(heard, name []rune, limit int) int {
	prev := make([]int, len(name)+1)
	cur := make([]int, len(name)+1)
	for j := 1; j <= len(name); j++ {
		prev[j] = min(prev[j-1]+indelCost(name[j-1]), inf)
	}
	for i := 1; i <= len(heard); i++ {
		cur[0] = min(prev[0]+indelCost(heard[i-1]), inf)
		for j := 1; j <= len(name); j++ {
			cur[j] = min(prev[j]+indelCost(heard[i-1]), cur[j-1]+indelCost(name[j-1]),
				prev[j-1]+subCost(heard[i-1], name[j-1]), inf)
		}
		prev, cur = cur, prev
	}
	if prev[len(name)] > limit {
		return limit + 1
	}
	return prev[len(name)]
}
