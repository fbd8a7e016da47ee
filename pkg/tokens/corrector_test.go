package tokens_test

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/mithub/mithub/pkg/tokens"
)

type observation struct {
	model               string
	estimated, reported int
}

func TestCorrectorFactor(t *testing.T) {
	tests := []struct {
		name string
		give []observation
		want float64
	}{
		{"no observations", nil, 1},
		{"one sample", []observation{{"gpt-4o", 100, 120}}, 1.04},
		{"two samples", []observation{{"gpt-4o", 100, 120}, {"gpt-4o", 100, 120}}, 1.072},
		{"too small to count", []observation{{"gpt-4o", 49, 200}}, 1},
		{"no usage reported", []observation{{"gpt-4o", 100, 0}}, 1},
		{"ratio clamped high", []observation{{"gpt-4o", 100, 1000}}, 1.2},
		{"ratio clamped low", []observation{{"gpt-4o", 100, 10}}, 0.9},
		{"other model", []observation{{"hcx-005", 100, 150}}, 1},
		{"provider and case", []observation{{"openai/GPT-4o", 100, 150}}, 1.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c tokens.Corrector
			for _, o := range tt.give {
				c.Observe(o.model, o.estimated, o.reported)
			}
			if got := c.Factor("gpt-4o"); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Factor = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCorrectorAdjust(t *testing.T) {
	var c tokens.Corrector
	c.Observe("gpt-4o", 100, 150) // factor 1.1
	tests := []struct {
		model string
		give  int
		want  int
	}{
		{"gpt-4o", 100, 110}, // 100 × 1.1 is not rounded up to 111
		{"gpt-4o", 1, 2},
		{"gpt-4o", 7, 8},
		{"gpt-4o", 0, 0},
		{"gpt-4o", -3, -3},
		{"llama-3.1-8b", 100, 100},
	}
	for _, tt := range tests {
		if got := c.Adjust(tt.model, tt.give); got != tt.want {
			t.Errorf("Adjust(%q, %d) = %d, want %d", tt.model, tt.give, got, tt.want)
		}
	}
}

func TestCorrectorConverges(t *testing.T) {
	var c tokens.Corrector
	for range 100 {
		c.Observe("llama-3.1-8b", 1000, 1300)
	}
	if got := c.Factor("llama-3.1-8b"); math.Abs(got-1.3) > 1e-6 {
		t.Errorf("Factor after 100 samples of 1.3 = %v", got)
	}
}

// Whatever is observed, the factor stays within [0.5, 2].
func TestCorrectorBounded(t *testing.T) {
	var c tokens.Corrector
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		c.Observe("m", rng.IntN(100000), rng.IntN(300000)-1000)
		if f := c.Factor("m"); f < 0.5 || f > 2 {
			t.Fatalf("Factor = %v, outside [0.5, 2]", f)
		}
	}
}

func TestCorrectorConcurrent(t *testing.T) {
	var c tokens.Corrector
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				c.Observe("gpt-4o", 100+i+g, (100+i+g)*6/5)
				_ = c.Adjust("gpt-4o", 1000)
			}
		})
	}
	wg.Wait()
	if f := c.Factor("gpt-4o"); f < 1.15 || f > 1.25 {
		t.Errorf("Factor = %v, want about 1.2", f)
	}
}
