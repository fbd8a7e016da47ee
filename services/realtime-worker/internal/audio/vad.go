package audio

import "math"

// VADConfig tunes the voice-activity detector. Zero fields take the
// defaults in brackets.
type VADConfig struct {
	// MarginDB is how far above the noise floor a frame's energy must be
	// to count as speech [12 dB].
	MarginDB float64
	// MinDB is the least energy, in dB below full scale, of speech [-50].
	MinDB float64
	// Start is how much speech opens an utterance [60 ms].
	StartMS int
	// HangoverMS is how much quiet after speech ends an utterance [500 ms].
	HangoverMS int
	// PreRollMS is audio kept before the start, so the first consonant is
	// not cut [200 ms].
	PreRollMS int
	// MinSpeechMS drops shorter utterances: coughs, clicks [250 ms].
	MinSpeechMS int
	// MaxUtteranceMS cuts a longer utterance, so a monologue is stored
	// as it goes [20 s].
	MaxUtteranceMS int
	// MaxGapMS: a longer gap in the stream (the track paused, packets
	// lost) ends the utterance; shorter ones are filled with silence [1 s].
	MaxGapMS int
}

func (c VADConfig) withDefaults() VADConfig {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if c.MarginDB <= 0 {
		c.MarginDB = 12
	}
	if c.MinDB == 0 {
		c.MinDB = -50
	}
	def(&c.StartMS, 60)
	def(&c.HangoverMS, 500)
	def(&c.PreRollMS, 200)
	def(&c.MinSpeechMS, 250)
	def(&c.MaxUtteranceMS, 20000)
	def(&c.MaxGapMS, 1000)
	return c
}

// Utterance is a stretch of speech: its PCM (with the pre-roll and the
// hangover) and where speech starts and ends on the stream's clock, in
// samples at SampleRate.
type Utterance struct {
	PCM []int16
	// PCMStart is the position of PCM[0].
	PCMStart int64
	// Start and End bound the speech itself.
	Start, End int64
}

// StartMS and EndMS are the speech's bounds in milliseconds of the stream.
func (u Utterance) StartMS() int64 { return u.Start * 1000 / SampleRate }

// EndMS is the end of speech in milliseconds of the stream.
func (u Utterance) EndMS() int64 { return u.End * 1000 / SampleRate }

// frameLen is the VAD's analysis frame: 20 ms.
const frameLen = SampleRate / 50

// VAD cuts a PCM stream into utterances by frame energy, with a hangover.
// It is not safe for concurrent use.
type VAD struct {
	c     VADConfig
	floor float64
	// next is the stream position the next sample is expected at; -1
	// before the first.
	next int64
	// frame collects samples until a whole frame.
	frame      []int16
	frameStart int64
	// ring is the pre-roll: the latest frames while not in speech.
	ring      []int16
	ringStart int64
	// in speech:
	active   bool
	run      int // consecutive speech frames while not active
	cur      []int16
	curStart int64
	speechAt int64 // first speech sample
	lastLoud int64 // end of the last speech frame
	quiet    int   // samples of quiet since lastLoud
}

// NewVAD returns a detector.
func NewVAD(c VADConfig) *VAD {
	return &VAD{c: c.withDefaults(), floor: -70, next: -1}
}

func ms(v int) int64 { return int64(v) * SampleRate / 1000 }

// Write feeds samples that start at stream position pos and returns the
// utterances they complete. A gap up to MaxGapMS is filled with silence;
// a longer one, or a step back, ends the utterance in progress.
func (v *VAD) Write(pcm []int16, pos int64) []Utterance {
	var out []Utterance
	if v.next >= 0 && pos != v.next {
		gap := pos - v.next
		if gap < 0 || gap > ms(v.c.MaxGapMS) {
			if u, ok := v.Flush(); ok {
				out = append(out, u)
			}
			v.next = -1
		} else {
			out = append(out, v.write(make([]int16, gap))...)
		}
	}
	if v.next < 0 {
		v.next = pos
		v.frame, v.frameStart = v.frame[:0], pos
		v.ring, v.ringStart = v.ring[:0], pos
	}
	return append(out, v.write(pcm)...)
}

func (v *VAD) write(pcm []int16) []Utterance {
	var out []Utterance
	for len(pcm) > 0 {
		n := min(frameLen-len(v.frame), len(pcm))
		v.frame = append(v.frame, pcm[:n]...)
		pcm = pcm[n:]
		v.next += int64(n)
		if len(v.frame) == frameLen {
			if u, ok := v.onFrame(v.frame, v.frameStart); ok {
				out = append(out, u)
			}
			v.frameStart += frameLen
			v.frame = v.frame[:0]
		}
	}
	return out
}

// Level is a frame's energy in dB below full scale.
func Level(frame []int16) float64 {
	var sum float64
	for _, s := range frame {
		f := float64(s)
		sum += f * f
	}
	if len(frame) == 0 || sum == 0 {
		return -100
	}
	return 10*math.Log10(sum/float64(len(frame))) - 20*math.Log10(32768)
}

func (v *VAD) onFrame(frame []int16, start int64) (Utterance, bool) {
	db := Level(frame)
	loud := db > max(v.floor+v.c.MarginDB, v.c.MinDB)
	if !loud || !v.active && v.run == 0 {
		// The floor follows quiet frames (down at once, up slowly).
		if db < v.floor {
			v.floor = max(db, -90)
		} else if !loud {
			v.floor = 0.95*v.floor + 0.05*db
		}
	}
	if !v.active {
		v.ring = append(v.ring, frame...)
		if keep := int(ms(v.c.PreRollMS) + ms(v.c.StartMS)); len(v.ring) > keep {
			drop := len(v.ring) - keep
			v.ring = append(v.ring[:0], v.ring[drop:]...)
			v.ringStart += int64(drop)
		}
		if !loud {
			v.run = 0
			return Utterance{}, false
		}
		v.run++
		if int64(v.run*frameLen) < ms(v.c.StartMS) {
			return Utterance{}, false
		}
		v.active = true
		v.speechAt = start + frameLen - int64(v.run*frameLen)
		v.run = 0
		v.cur = append(v.cur[:0], v.ring...)
		v.curStart = v.ringStart
		v.ring = v.ring[:0]
		v.lastLoud, v.quiet = start+frameLen, 0
		return Utterance{}, false
	}
	v.cur = append(v.cur, frame...)
	if loud {
		v.lastLoud, v.quiet = start+frameLen, 0
	} else {
		v.quiet += frameLen
	}
	if int64(v.quiet) >= ms(v.c.HangoverMS) || start+frameLen-v.speechAt >= ms(v.c.MaxUtteranceMS) {
		return v.end()
	}
	return Utterance{}, false
}

// end closes the utterance in progress; it is returned unless too short.
func (v *VAD) end() (Utterance, bool) {
	v.active = false
	v.ring, v.ringStart = v.ring[:0], v.curStart+int64(len(v.cur))
	if v.lastLoud-v.speechAt < ms(v.c.MinSpeechMS) {
		return Utterance{}, false
	}
	u := Utterance{PCM: append([]int16(nil), v.cur...), PCMStart: v.curStart, Start: v.speechAt, End: v.lastLoud}
	v.cur = v.cur[:0]
	return u, true
}

// Current is the utterance in progress: its audio so far (valid until the
// next Write or Flush) and the position of its first sample; ok is false
// between utterances.
func (v *VAD) Current() (pcm []int16, start int64, ok bool) {
	if !v.active {
		return nil, 0, false
	}
	return v.cur, v.curStart, true
}

// Flush ends the utterance in progress, if any, as when the track ends.
func (v *VAD) Flush() (Utterance, bool) {
	if len(v.frame) > 0 && v.active {
		v.cur = append(v.cur, v.frame...)
	}
	v.frame = v.frame[:0]
	v.run = 0
	if !v.active {
		return Utterance{}, false
	}
	return v.end()
}
