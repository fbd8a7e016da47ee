package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

type compressConfig struct {
	Memory         memoryFlags
	ConversationID string
	// Inline runs the summaries in this process instead of queueing them
	// for pr-worker.
	Inline  bool
	Timeout time.Duration
}

func compressCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "compress",
		Summary: "compress a conversation to 10% of the model window, with a progress bar",
		Usage:   "mithubctl compress --conversation ID [--inline] [--window N] [--timeout D]",
		Flags: func() *flag.FlagSet {
			var c compressConfig
			return compressFlags(&c)
		},
		Run: runCompress,
	}
}

func compressFlags(c *compressConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("compress")
	fs.StringVar(&c.ConversationID, "conversation", "", "conversation id (required)")
	fs.BoolVar(&c.Inline, "inline", false, "summarise in this process instead of queueing memory:* tasks for pr-worker")
	fs.DurationVar(&c.Timeout, "timeout", time.Hour, "give up waiting after this long (the queued work goes on)")
	c.Memory.register(fs)
	return fs
}

func parseCompress(args []string, getenv func(string) string) (compressConfig, error) {
	var c compressConfig
	if err := cmdline.ParseFlags(compressFlags(&c), args); err != nil {
		return c, err
	}
	switch {
	case c.ConversationID == "":
		return c, cmdline.UsageErrorf("compress", "--conversation is required")
	case c.Timeout <= 0:
		return c, cmdline.UsageErrorf("compress", "--timeout must be positive")
	}
	return c, c.Memory.resolve("compress", getenv)
}

func runCompress(ctx context.Context, e *cmdline.Env, args []string) error {
	c, err := parseCompress(args, e.Getenv)
	if err != nil {
		return err
	}
	m, err := openMemory(ctx, c.Memory, e.Getenv, !c.Inline, e.Stderr)
	if err != nil {
		return err
	}
	defer m.Close()
	before, err := m.svc.Stats(ctx, m.tenantID, c.ConversationID)
	if err != nil {
		return memoryError("compress", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	start := time.Now()
	job := convmemory.Job{TenantID: m.tenantID, ConversationID: c.ConversationID, TargetTokens: m.svc.TargetTokens(c.Memory.Window)}
	bar := &compressBar{w: e.Stderr, tty: isTTY(e.Stderr)}
	runErr := make(chan error, 1)
	go func() {
		_, err := m.svc.Compress(ctx, m.tenantID, c.ConversationID, c.Memory.Window)
		runErr <- err
	}()
	started := false
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-runErr:
			if err != nil {
				bar.finish()
				return err
			}
			started = true
			runErr = nil
		case <-tick.C:
		case <-ctx.Done():
			bar.finish()
			return fmt.Errorf("compress %s: gave up waiting after %s (queued work goes on; run compress again to follow it)", c.ConversationID, c.Timeout)
		}
		p, err := m.svc.Progress(ctx, job)
		if err != nil {
			bar.finish()
			return err
		}
		bar.draw(p, time.Since(start))
		done := started && p.Done
		if done && m.queue != nil {
			_, running, err := m.queue.Running(ctx, c.ConversationID)
			if err != nil {
				bar.finish()
				return err
			}
			done = !running
		}
		if done {
			bar.finish()
			after, err := m.svc.Stats(ctx, m.tenantID, c.ConversationID)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.Stdout, "compressed %s: %d turns, %d tokens -> %d tokens (ratio %.4f, target %d) in %s; %d levels, %d summaries\n",
				c.ConversationID, after.Turns, after.RawTokens, after.LiveTokens, after.CompressionRatio, job.TargetTokens,
				time.Since(start).Round(time.Millisecond), after.Levels, p.UnitsPlanned())
			if !p.Fits {
				fmt.Fprintf(e.Stdout, "note: the summaries do not fit the target (was %d live tokens); the context keeps the newest part\n", before.LiveTokens)
			}
			return nil
		}
	}
}

// compressBar draws "[#####-----] 412/530 summaries, level 2 12.3s".
type compressBar struct {
	w     io.Writer
	tty   bool
	drawn bool
	last  string
}

func (b *compressBar) draw(p convmemory.Plan, elapsed time.Duration) {
	done, planned := p.UnitsDone(), p.UnitsPlanned()
	level := 1
	if len(p.Levels) > 0 {
		level = p.Levels[len(p.Levels)-1].Level
	}
	filled := 0
	if planned > 0 {
		filled = done * barWidth / planned
	}
	line := fmt.Sprintf("[%s%s] %d/%d summaries, level %d %s", strings.Repeat("#", filled),
		strings.Repeat("-", barWidth-filled), done, planned, level, elapsed.Round(100*time.Millisecond))
	if b.tty {
		fmt.Fprintf(b.w, "\r%s\x1b[K", line)
		b.drawn = true
		return
	}
	// Not a terminal: one line per tenth of the work or new level.
	key := fmt.Sprint(done*10/max(planned, 1), level)
	if key != b.last {
		b.last = key
		fmt.Fprintln(b.w, line)
	}
}

func (b *compressBar) finish() {
	if b.tty && b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}

const barWidth = 20

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
