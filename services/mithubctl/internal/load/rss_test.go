package load

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseVmRSS(t *testing.T) {
	tests := []struct {
		name    string
		give    string
		want    int64
		wantErr bool
	}{
		{"status file", "Name:\tagent-api\nVmPeak:\t 900000 kB\nVmRSS:\t   51234 kB\nThreads:\t9\n", 51234, false},
		{"kernel thread", "Name:\tkworker/0:1\nThreads:\t1\n", 0, true},
		{"odd unit", "VmRSS:\t12 MB\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseVmRSS(strings.NewReader(tt.give))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("got %d, %v; want %d, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestReadRSSOfThisProcess(t *testing.T) {
	kb, err := ReadRSS(os.Getpid())
	if err != nil || kb <= 0 {
		t.Fatalf("ReadRSS(self) = %d, %v", kb, err)
	}
}

func TestParseProcs(t *testing.T) {
	got, err := ParseProcs("agent-api=12, pr-worker=34,56")
	if err != nil || len(got) != 3 || got[0] != (Proc{"agent-api", 12}) || got[1] != (Proc{"pr-worker", 34}) || got[2] != (Proc{"56", 56}) {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, bad := range []string{"api=", "api=-3", "api=x"} {
		if _, err := ParseProcs(bad); err == nil {
			t.Errorf("ParseProcs(%q): no error", bad)
		}
	}
}

func TestGrowthAfterWarmup(t *testing.T) {
	s := RSSSeries{Proc: Proc{"agent-api", 1}, Samples: []RSSSample{
		{0, 40_000}, {30 * time.Second, 90_000}, {2 * time.Minute, 100_000}, {150 * time.Second, 0}, {10 * time.Minute, 105_000},
	}}
	base, last, g, ok := s.Growth(2*time.Minute, 0)
	if !ok || base.KB != 100_000 || last.KB != 105_000 || g < 0.0499 || g > 0.0501 {
		t.Fatalf("growth %v (%v → %v), ok %v", g, base, last, ok)
	}
	// Up to the end of the traffic at 10:00, a later reading (after
	// settling) does not count.
	s.Samples = append(s.Samples, RSSSample{10*time.Minute + 5*time.Second, 200_000})
	if _, last, g, ok := s.Growth(2*time.Minute, 10*time.Minute); !ok || last.KB != 105_000 || g > 0.0501 {
		t.Fatalf("growth to the end of the traffic %v (to %v), ok %v", g, last, ok)
	}
	// The process died before the end: no growth figure.
	s.Samples = append(s.Samples, RSSSample{11 * time.Minute, 0})
	if _, _, _, ok := s.Growth(2*time.Minute, 0); ok {
		t.Fatal("growth of a series ending without a reading")
	}
	if _, _, _, ok := s.Growth(2*time.Minute, time.Minute); ok {
		t.Fatal("growth with the traffic ending before the warm-up")
	}
	if _, _, _, ok := (RSSSeries{Samples: []RSSSample{{0, 5}}}).Growth(time.Minute, 0); ok {
		t.Fatal("growth without a reading after the warm-up")
	}
}

func TestSamplerTakesAFinalSample(t *testing.T) {
	s := newRSSSampler([]Proc{{"a", 1}, {"b", 2}}, time.Hour, time.Now())
	reads := 0
	s.read = func(pid int) (int64, error) {
		reads++
		if pid == 2 {
			return 0, os.ErrNotExist
		}
		return int64(1000 * reads), nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.run(ctx)
	got := s.result()
	// One sample at the start, one when stopped; the unreadable process
	// reads 0.
	if len(got) != 2 || len(got[0].Samples) != 2 || got[0].Samples[1].KB != 3000 || got[1].Samples[1].KB != 0 {
		t.Fatalf("series %+v", got)
	}
}
