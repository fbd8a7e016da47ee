package local_test

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mithub/mithub/pkg/llm/local"
	"github.com/mithub/mithub/pkg/qmsum"
)

// TestTuneSegmenter logs the default Segmenter's and the baselines' mean
// Pk and WindowDiff on QMSum train and val, then sweeps parameters on the
// training meetings and logs the best settings by mean Pk, with their
// validation figures (the defaults came from this sweep, chosen on train
// only). It is a manual tool, about 15 minutes on two cores:
//
//	MITHUB_TUNE=1 go test -run TestTuneSegmenter -v -timeout 1h ./llm/local/
//
// MITHUB_TUNE=defaults stops after the first part.
func TestTuneSegmenter(t *testing.T) {
	if os.Getenv("MITHUB_TUNE") == "" {
		t.Skip("set MITHUB_TUNE=1 to sweep segmenter parameters on QMSum train")
	}
	train, val := loadSplit(t, "train"), loadSplit(t, "val")
	for _, split := range []struct {
		name     string
		meetings []*qmsum.Meeting
	}{{"train", train}, {"val", val}} {
		def, _ := evaluate(t, local.NewSegmenter(local.SegmenterConfig{}), split.meetings)
		chunks, _ := evaluate(t, chunkBaseline{}, split.meetings)
		one, _ := evaluate(t, oneTopicBaseline{}, split.meetings)
		t.Logf("%s: defaults Pk=%.4f WD=%.4f (%d topics, reference %d) | one topic per chunk Pk=%.4f WD=%.4f | "+
			"one topic Pk=%.4f WD=%.4f", split.name, def.pk, def.wd, def.topic, def.ref, chunks.pk, chunks.wd, one.pk, one.wd)
	}
	if os.Getenv("MITHUB_TUNE") == "defaults" {
		return
	}
	var configs []local.SegmenterConfig
	for _, block := range []int{250, 400} {
		for _, smooth := range []int{1, 2} {
			for _, c := range []float64{-1.5, -2} {
				for _, score := range []float64{1.1, 1.4, 1.7} {
					for _, cue := range []float64{1.5, 2} {
						for _, length := range []float64{1.5, 2} {
							for _, long := range []int{120, 160} {
								for _, minTopic := range []time.Duration{5 * time.Minute, 8 * time.Minute} {
									for _, tail := range []int{60, 100} {
										configs = append(configs, local.SegmenterConfig{
											BlockWords: block, Smoothing: smooth, CutoffC: c, MinScore: score,
											CueWeight: cue, LengthWeight: length, LongTurnWords: long,
											MinTopic: minTopic, TailWords: tail,
										})
									}
								}
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

// sweep evaluates configs (each over the meetings in parallel) and sorts
// them by mean Pk.
func sweep(t *testing.T, meetings []*qmsum.Meeting, configs []local.SegmenterConfig) []sweepResult {
	results := make([]sweepResult, len(configs))
	cache := new(sync.Map)
	for i, cfg := range configs {
		mean, _ := evaluate(t, local.NewSegmenterNoSummaries(cfg, cache), meetings)
		results[i] = sweepResult{cfg: cfg, mean: mean}
	}
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
	return fmt.Sprintf("BlockWords=%d Smoothing=%d CutoffC=%.2f MinScore=%.2f CueWeight=%.2f LengthWeight=%.2f "+
		"LongTurnWords=%d MinTopic=%v TailWords=%d",
		c.BlockWords, c.Smoothing, c.CutoffC, c.MinScore, c.CueWeight, c.LengthWeight, c.LongTurnWords,
		c.MinTopic, c.TailWords)
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
