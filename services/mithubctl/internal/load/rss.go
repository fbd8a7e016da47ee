package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Proc is a process whose resident set size is sampled.
type Proc struct {
	Name string
	PID  int
}

// ParseProcs reads "name=pid[,name=pid...]"; a bare pid is named after it.
func ParseProcs(s string) ([]Proc, error) {
	var out []Proc
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, pidText, ok := strings.Cut(part, "=")
		if !ok {
			name, pidText = part, part
		}
		pid, err := strconv.Atoi(strings.TrimSpace(pidText))
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("process %q: want name=pid with a positive pid", part)
		}
		out = append(out, Proc{Name: strings.TrimSpace(name), PID: pid})
	}
	return out, nil
}

// ParseVmRSS returns the VmRSS line of a /proc/<pid>/status file in KiB.
func ParseVmRSS(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("VmRSS line %q: want \"<n> kB\"", sc.Text())
		}
		return strconv.ParseInt(f[0], 10, 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmRSS line (kernel thread or zombie)")
}

// ReadRSS reads a process's resident set size in KiB.
func ReadRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return ParseVmRSS(f)
}

// RSSSample is one reading; KB is 0 when the process could not be read.
type RSSSample struct {
	At time.Duration
	KB int64
}

// RSSSeries is one process's readings over the run.
type RSSSeries struct {
	Proc    Proc
	Samples []RSSSample
}

// Growth compares the last reading at or before end (any time when end
// is 0) with the first one taken at or after warmup: (last - base) /
// base. ok is false without both readings.
func (s RSSSeries) Growth(warmup, end time.Duration) (base, last RSSSample, growth float64, ok bool) {
	for _, x := range s.Samples {
		if x.At >= warmup && x.KB > 0 {
			base, ok = x, true
			break
		}
	}
	if !ok {
		return RSSSample{}, RSSSample{}, 0, false
	}
	found := false
	for _, x := range s.Samples {
		if end > 0 && x.At > end {
			break
		}
		last, found = x, true
	}
	if !found || last.KB == 0 || last.At <= base.At {
		return base, last, 0, false
	}
	return base, last, float64(last.KB-base.KB) / float64(base.KB), true
}

// rssSampler reads every process at start, every interval, and once more
// when stopped.
type rssSampler struct {
	procs []Proc
	every time.Duration
	start time.Time
	read  func(pid int) (int64, error)

	// mu guards series.
	mu     sync.Mutex
	series []RSSSeries
}

func newRSSSampler(procs []Proc, every time.Duration, start time.Time) *rssSampler {
	s := &rssSampler{procs: procs, every: every, start: start, read: ReadRSS}
	for _, p := range procs {
		s.series = append(s.series, RSSSeries{Proc: p})
	}
	return s
}

// run samples until ctx ends, then takes the final sample.
func (s *rssSampler) run(ctx context.Context) {
	if len(s.procs) == 0 {
		return
	}
	s.sample()
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.sample()
			return
		case <-t.C:
			s.sample()
		}
	}
}

// sample reads every process now and returns when, from the start.
func (s *rssSampler) sample() time.Duration {
	at := time.Since(s.start)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, p := range s.procs {
		kb, err := s.read(p.PID)
		if err != nil {
			kb = 0
		}
		s.series[i].Samples = append(s.series[i].Samples, RSSSample{At: at, KB: kb})
	}
	return at
}

func (s *rssSampler) result() []RSSSeries {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RSSSeries, len(s.series))
	for i, x := range s.series {
		out[i] = RSSSeries{Proc: x.Proc, Samples: append([]RSSSample(nil), x.Samples...)}
	}
	return out
}
