package meetingctx_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/mithub/mithub/pkg/meetingctx"
)

func turns(from, n int, rng *rand.Rand) []meetingctx.Turn {
	out := make([]meetingctx.Turn, n)
	for i := range out {
		seq := from + i
		out[i] = meetingctx.Turn{Seq: seq, SegmentID: fmt.Sprint("s", seq), SpeakerID: "a", Text: fmt.Sprint("turn ", seq), Tokens: 1 + rng.IntN(400)}
	}
	return out
}

func TestApplyKeepsL0WithinBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cfg := meetingctx.Config{L0MaxTurns: 25, L0MaxTokens: 3000}
	m := meetingctx.New("t", "m", cfg, nil)
	all := turns(0, 500, rng)
	for i := 0; i < len(all); i += 7 {
		if _, err := m.Apply(all[i:min(i+7, len(all))]); err != nil {
			t.Fatal(err)
		}
		s := m.Snapshot()
		if len(s.L0) > 25 || (s.L0Tokens > 3000 && len(s.L0) > 1) {
			t.Fatalf("L0 has %d turns / %d tokens", len(s.L0), s.L0Tokens)
		}
		if s.L0[len(s.L0)-1].Seq != s.Cursor {
			t.Fatalf("newest L0 turn %d is not the cursor %d", s.L0[len(s.L0)-1].Seq, s.Cursor)
		}
		sum := 0
		for j, tr := range s.L0 {
			sum += tr.Tokens
			if j > 0 && tr.Seq != s.L0[j-1].Seq+1 {
				t.Fatalf("L0 not contiguous at %d", j)
			}
		}
		if sum != s.L0Tokens {
			t.Fatalf("L0 tokens %d, sum %d", s.L0Tokens, sum)
		}
	}
}

func TestApplySkipsAppliedAndReportsGaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := meetingctx.New("t", "m", meetingctx.Config{}, nil)
	all := turns(0, 10, rng)
	if n, err := m.Apply(all[:5]); n != 5 || err != nil {
		t.Fatalf("apply: %d %v", n, err)
	}
	if n, err := m.Apply(all[3:6]); n != 1 || err != nil {
		t.Fatalf("overlap: %d %v", n, err)
	}
	n, err := m.Apply(all[8:])
	if !errors.Is(err, meetingctx.ErrGap) || n != 0 || m.Cursor() != 5 {
		t.Fatalf("gap: %d %v cursor %d", n, err, m.Cursor())
	}
}

func TestRestoreEqualsIncremental(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, seed))
		all := turns(0, 1+rng.IntN(300), rng)
		cfg := meetingctx.Config{L0MaxTurns: 1 + rng.IntN(40), L0MaxTokens: 100 + rng.IntN(4000)}
		inc := meetingctx.New("t", "m", cfg, nil)
		for i := 0; i < len(all); {
			n := 1 + rng.IntN(60)
			if _, err := inc.Apply(all[i:min(i+n, len(all))]); err != nil {
				t.Fatal(err)
			}
			i += n
		}
		re, err := meetingctx.Restore("t", "m", cfg, nil, meetingctx.State{Turns: all})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := inc.Snapshot(), re.Snapshot(); !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: incremental %+v\nrestored %+v", seed, a, b)
		}
	}
}
