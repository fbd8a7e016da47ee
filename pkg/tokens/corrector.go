package tokens

import (
	"math"
	"sync"
)

// Correction-factor tuning.
const (
	correctionAlpha     = 0.2
	correctionMin       = 0.5
	correctionMax       = 2.0
	correctionMinSample = 50
	correctionMaxModels = 1024
	// correctionSlack keeps float error (100 × 1.1 = 110.00000000000001)
	// from rounding a whole product up.
	correctionSlack = 1e-12
)

// Corrector learns, per model, how far local counts are from the tokens a
// provider reports (usage.prompt_tokens), so budgets follow the real
// tokenizer: a Llama or HyperCLOVA model counted with cl100k_base, or chat
// framing the count leaves out. The zero value is ready; it is safe for
// concurrent use.
type Corrector struct {
	mu      sync.Mutex
	factors map[string]float64
}

// Observe records one call: estimated is the local count of the prompt,
// reported the provider's. The model's factor moves toward
// reported/estimated with weight 0.2, the ratio clamped to [0.5, 2].
// Prompts under 50 estimated tokens, where framing dominates, are ignored,
// and so are new models once 1024 are tracked.
func (c *Corrector) Observe(model string, estimated, reported int) {
	if estimated < correctionMinSample || reported <= 0 {
		return
	}
	ratio := min(max(float64(reported)/float64(estimated), correctionMin), correctionMax)
	key := modelKey(model)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.factors == nil {
		c.factors = make(map[string]float64)
	}
	f, ok := c.factors[key]
	if !ok {
		if len(c.factors) >= correctionMaxModels {
			return
		}
		f = 1
	}
	c.factors[key] = (1-correctionAlpha)*f + correctionAlpha*ratio
}

// Factor is the model's current correction factor: 1 for a model with no
// observations.
func (c *Corrector) Factor(model string) float64 {
	key := modelKey(model)
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.factors[key]; ok {
		return f
	}
	return 1
}

// Adjust scales a local count by the model's factor, rounding up.
func (c *Corrector) Adjust(model string, n int) int {
	if n <= 0 {
		return n
	}
	x := float64(n) * c.Factor(model)
	return int(math.Ceil(x - x*correctionSlack))
}
