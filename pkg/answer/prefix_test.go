package answer

import (
	"math/rand/v2"
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/tokens"
)

// The memoised prefix count of a turn line equals a fresh count of that
// very prefix, whatever the clock, speaker and confidence.
func TestPrefixTokensMatchCount(t *testing.T) {
	names := []string{"Speaker 1", "김민수", "Dr. O'Neil", "3PO", "", "박 팀장", "Zoë-Ann", "R2", "  spaced ", "x:y"}
	for _, enc := range []string{tokens.CL100K, tokens.O200K} {
		c, err := tokens.ForEncoding(enc)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(9, 10))
		// A shared memo seen by three builds in turn, each with its own
		// local one, as the ask service uses them.
		shared := NewPrefixCounts()
		var b builder
		for i := range 5000 {
			if i%2000 == 0 {
				b = builder{in: Input{Counter: c, Prefixes: shared}, prefixes: map[prefixKey]int{}}
			}
			tr := meetingctx.Turn{
				SpeakerID: "id" + string(rune('a'+rng.IntN(5))), SpeakerName: names[rng.IntN(len(names))],
				StartMS: rng.Int64N(int64(1+rng.IntN(4)) * 600 * 60_000), Confidence: rng.Float32(),
			}
			want := c.Count(string(appendTurnLine(nil, 999999, tr)))
			if got := b.prefixTokens(tr); got != want {
				t.Fatalf("%s #%d: prefix of %q counted %d, fresh count %d", enc, i, appendTurnLine(nil, 999999, tr), got, want)
			}
		}
	}
}
