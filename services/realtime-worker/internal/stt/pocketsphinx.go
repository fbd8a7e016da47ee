package stt

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"unicode"
)

// DefaultPocketSphinxModel is where Debian's pocketsphinx-en-us puts the
// US English model.
const DefaultPocketSphinxModel = "/usr/share/pocketsphinx/model/en-us"

// DefaultPocketSphinxWords are the dictionary entries added to the
// model's: the bot's name is no English word.
var DefaultPocketSphinxWords = []string{"mithub:M IH T HH AH B"}

// PocketSphinxConfig configures the pocketsphinx provider.
type PocketSphinxConfig struct {
	// ModelDir holds en-us/ (the acoustic model), en-us.lm.bin and
	// cmudict-en-us.dict (default DefaultPocketSphinxModel).
	ModelDir string
	// Words are extra dictionary entries, "word:PHONES" in CMUdict's
	// phone set; each is added to the language model too.
	Words []string
	// Decoders is the most utterances decoded at once (default the number
	// of CPUs); each decoder holds its own copy of the model.
	Decoders int
}

// Word is one parsed dictionary entry.
type Word struct{ Text, Phones string }

// ParseWords reads "word:PHONES" entries.
func ParseWords(entries []string) ([]Word, error) {
	var out []Word
	for _, e := range entries {
		w, ph, ok := strings.Cut(e, ":")
		w, ph = strings.ToLower(strings.TrimSpace(w)), strings.ToUpper(strings.Join(strings.Fields(ph), " "))
		if !ok || w == "" || ph == "" || strings.ContainsFunc(w, unicode.IsSpace) {
			return nil, fmt.Errorf("dictionary entry %q is not word:PHONES (as in mithub:M IH T HH AH B)", e)
		}
		for _, p := range strings.Fields(ph) {
			if !isPhone(p) {
				return nil, fmt.Errorf("dictionary entry %q: %q is not a CMUdict phone", e, p)
			}
		}
		out = append(out, Word{Text: w, Phones: ph})
	}
	return out, nil
}

// phones is the en-us model's phone set.
var phones = map[string]bool{}

func init() {
	for _, p := range strings.Fields("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH") {
		phones[p] = true
	}
}

func isPhone(p string) bool { return phones[p] }

func (c PocketSphinxConfig) withDefaults() PocketSphinxConfig {
	if c.ModelDir == "" {
		c.ModelDir = DefaultPocketSphinxModel
	}
	if c.Decoders <= 0 {
		c.Decoders = runtime.NumCPU()
	}
	return c
}

// PocketSphinx transcribes English offline with a pool of libpocketsphinx
// decoders.
type PocketSphinx struct {
	c     PocketSphinxConfig
	words []Word
	// pool holds idle decoders; slots limits how many exist.
	pool  chan *psDecoder
	slots chan struct{}
}

// NewPocketSphinx loads one decoder (so a bad model fails at start) and
// returns the provider.
func NewPocketSphinx(c PocketSphinxConfig) (*PocketSphinx, error) {
	c = c.withDefaults()
	words, err := ParseWords(c.Words)
	if err != nil {
		return nil, err
	}
	p := &PocketSphinx{c: c, words: words, pool: make(chan *psDecoder, c.Decoders), slots: make(chan struct{}, c.Decoders)}
	d, err := newPSDecoder(c, words)
	if err != nil {
		return nil, err
	}
	p.slots <- struct{}{}
	p.pool <- d
	return p, nil
}

// Name is "pocketsphinx".
func (*PocketSphinx) Name() string { return ProviderPocketSphinx }

// Transcribe decodes one utterance. The language is always "en".
func (p *PocketSphinx) Transcribe(ctx context.Context, req Request) (Result, error) {
	var d *psDecoder
	select {
	case d = <-p.pool:
	case p.slots <- struct{}{}:
		var err error
		if d, err = p.create(); err != nil {
			return Result{}, err
		}
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	text, conf, err := d.decode(req.PCM)
	p.pool <- d
	if err != nil {
		return Result{}, err
	}
	return Result{Text: text, Confidence: conf, Language: "en"}, nil
}

// create makes a decoder in the slot the caller took, and gives the slot
// back when it fails.
func (p *PocketSphinx) create() (*psDecoder, error) {
	d, err := newPSDecoder(p.c, p.words)
	if err != nil {
		<-p.slots
	}
	return d, err
}

// Begin takes a free decoder, or creates one while fewer than Decoders
// exist, and starts an utterance on it.
func (p *PocketSphinx) Begin() (Stream, bool, error) {
	var d *psDecoder
	select {
	case d = <-p.pool:
	case p.slots <- struct{}{}:
		var err error
		if d, err = p.create(); err != nil {
			return nil, false, err
		}
	default:
		return nil, false, nil
	}
	if err := d.start(); err != nil {
		p.pool <- d
		return nil, false, err
	}
	return &psStream{p: p, d: d}, true, nil
}

// psStream is an utterance decoded as it arrives.
type psStream struct {
	p   *PocketSphinx
	d   *psDecoder
	err error
}

func (s *psStream) Write(pcm []int16) error {
	if s.err == nil && len(pcm) > 0 {
		s.err = s.d.process(pcm)
	}
	return s.err
}

func (s *psStream) End() (Result, error) {
	defer s.release()
	if s.err != nil {
		s.d.abort()
		return Result{}, s.err
	}
	text, conf, err := s.d.end()
	if err != nil {
		return Result{}, err
	}
	return Result{Text: text, Confidence: conf, Language: "en"}, nil
}

func (s *psStream) Abort() {
	s.d.abort()
	s.release()
}

func (s *psStream) release() {
	if s.d != nil {
		s.p.pool <- s.d
		s.d = nil
	}
}

// Close frees the idle decoders.
func (p *PocketSphinx) Close() error {
	for {
		select {
		case d := <-p.pool:
			d.free()
		default:
			return nil
		}
	}
}

// cleanHyp drops the filler words pocketsphinx may report.
func cleanHyp(hyp string) string {
	var out []string
	for _, w := range strings.Fields(hyp) {
		if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "++") {
			continue
		}
		// Alternative pronunciations come back as word(2).
		if i := strings.IndexByte(w, '('); i > 0 {
			w = w[:i]
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}
