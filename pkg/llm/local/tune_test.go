package local_test

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/llm/local"
	"github.com/mithub/mithub/pkg/qmsum"
)

// TestTuneSegmenter sweeps Segmenter parameters on the QMSum training
// meetings and logs the best settings by mean Pk, with their validation
// figures. It is a manual tool:
//
//	MITHUB_TUNE=1 go test -run TestTuneSegmenter -v -timeout 2h ./llm/local/
func TestTuneSegmenter(t *testing.T) {
	if os.Getenv("MITHUB_TUNE") == "" {
		t.Skip("set MITHUB_TUNE=1 to sweep segmenter parameters on QMSum train")
	}
	train, val := loadSplit(t, "train"), loadSplit(t, "val")
	var configs []local.SegmenterConfig
	for _, block := range []int{80, 120, 180} {
		for _, smooth := range []int{1, 2} {
			for _, floor := range []float64{0.3, 0.4, 0.5, 0.6, 0.7} {
				for _, cue := range []float64{0.01, 0.2, 0.4, 0.6} {
					for _, minTopic := range []time.Duration{3 * time.Minute, 5 * time.Minute, 8 * time.Minute} {
						for _, norm := range []float64{0.5, 1} {
							for _, tail := range []int{30, 60} {
								configs = append(configs, local.SegmenterConfig{
									BlockWords: block, Smoothing: smooth, DepthC: -1.5, MinDepth: floor, CueWeight: cue,
									MinTopic: minTopic, TailWords: tail, TurnNorm: norm, Zero: true,
								})
							}
						}
					}
				}
			}
		}
	}
	start := time.Now()
	results := sweep(t, train, configs)
	t.Logf("%d configurations in %v", len(configs), time.Since(start).Round(time.Second))
	for _, r := range results[:min(25, len(results))] {
		v, _ := evaluate(t, local.NewSegmenterNoSummaries(r.cfg, new(sync.Map)), val)
		t.Logf("train Pk=%.4f WD=%.4f topics=%d | val Pk=%.4f WD=%.4f | %s",
			r.mean.pk, r.mean.wd, r.mean.topic, v.pk, v.wd, describe(r.cfg))
	}
}

type sweepResult struct {
	cfg  local.SegmenterConfig
	mean score
}

// sweep evaluates configs in parallel and sorts them by mean Pk.
func sweep(t *testing.T, meetings []*qmsum.Meeting, configs []local.SegmenterConfig) []sweepResult {
	results := make([]sweepResult, len(configs))
	cache := new(sync.Map)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				mean, _ := evaluate(t, local.NewSegmenterNoSummaries(configs[i], cache), meetings)
				results[i] = sweepResult{cfg: configs[i], mean: mean}
			}
		})
	}
	for i := range configs {
		next <- i
	}
	close(next)
	wg.Wait()
	slices.SortStableFunc(results, func(a, b sweepResult) int {
		switch {
		case a.mean.pk < b.mean.pk:
			return -1
		case a.mean.pk > b.mean.pk:
			return 1
		}
		return 0
	})
	return results
}

func describe(c local.SegmenterConfig) string {
	return fmt.Sprintf("block=%d smooth=%d c=%.2f floor=%.2f cue=%.2f min=%v tail=%d norm=%.2f",
		c.BlockWords, c.Smoothing, c.DepthC, c.MinDepth, c.CueWeight, c.MinTopic, c.TailWords, c.TurnNorm)
}

// BenchmarkSweepConfig measures one configuration's pass over QMSum train
// with memoised turn analysis, the unit of a sweep.
func BenchmarkSweepConfig(b *testing.B) {
	train := loadSplit(b, "train")
	cache := new(sync.Map)
	for b.Loop() {
		evaluate(b, local.NewSegmenterNoSummaries(local.SegmenterConfig{}, cache), train)
	}
}
