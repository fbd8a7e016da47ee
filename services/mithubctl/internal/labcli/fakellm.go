package labcli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/fakellm"
)

type fakeLLMConfig struct {
	Addr  string
	Mode  string
	Delay time.Duration
}

func fakeLLMCommand() cmdline.Command {
	return cmdline.Command{
		Name:    "fake-llm",
		Summary: "serve a fake OpenAI-compatible chat API for fault tests (modes ok, slow, timeout, garbage, error; PUT /mode switches)",
		Usage:   "mithub-lab fake-llm [--addr 127.0.0.1:17889] [--mode ok] [--delay 2s]",
		Flags: func() *flag.FlagSet {
			var c fakeLLMConfig
			return fakeLLMFlags(&c)
		},
		Run: runFakeLLM,
	}
}

func fakeLLMFlags(c *fakeLLMConfig) *flag.FlagSet {
	fs := cmdline.NewFlagSet("fake-llm")
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:17889", "listen address")
	fs.StringVar(&c.Mode, "mode", "ok", "initial mode: ok, slow, timeout, garbage or error")
	fs.DurationVar(&c.Delay, "delay", 2*time.Second, "how long slow mode waits before answering")
	return fs
}

func runFakeLLM(ctx context.Context, e *cmdline.Env, args []string) error {
	var c fakeLLMConfig
	if err := cmdline.ParseFlags(fakeLLMFlags(&c), args); err != nil {
		return err
	}
	mode, err := fakellm.ParseMode(c.Mode)
	if err != nil {
		return cmdline.UsageErrorf("fake-llm", "--mode: %v", err)
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("fake-llm: %w", err)
	}
	srv := &http.Server{Handler: fakellm.New(mode, c.Delay).Handler(), ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(e.Stderr, "fake-llm: serving http://%s/v1 in mode %s\n", ln.Addr(), mode)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// Held requests of timeout mode end with the server.
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
