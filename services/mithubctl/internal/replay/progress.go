package replay

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// barWidth is the number of cells in the progress bar.
const barWidth = 20

// progress draws "[#####-----] 250/533 47% 120 utt/s": redrawn in place on
// a terminal, otherwise one line per 10% step.
type progress struct {
	w      io.Writer
	tty    bool
	total  int
	now    func() time.Time
	start  time.Time
	decile int // last decile printed when not on a terminal
	drawn  bool
}

func newProgress(w io.Writer, total int, tty bool, now func() time.Time) *progress {
	return &progress{w: w, tty: tty, total: total, now: now, start: now()}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// update reports that done utterances have been sent.
func (p *progress) update(done int) {
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(done))
		p.drawn = true
		return
	}
	if d := done * 10 / p.total; d > p.decile {
		p.decile = d
		fmt.Fprintln(p.w, p.line(done))
	}
}

// finish ends a redrawn line.
func (p *progress) finish() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
}

// line renders the bar for done of total.
func (p *progress) line(done int) string {
	filled := done * barWidth / p.total
	pct := (done*100 + p.total/2) / p.total
	if done < p.total {
		pct = min(pct, 99)
	}
	var rate float64
	if secs := p.now().Sub(p.start).Seconds(); secs > 0 {
		rate = float64(done) / secs
	}
	return fmt.Sprintf("[%s%s] %d/%d %d%% %.0f utt/s",
		strings.Repeat("#", filled), strings.Repeat("-", barWidth-filled), done, p.total, pct, rate)
}
