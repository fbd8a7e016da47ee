package testenv

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Dev credentials of livekit-server --dev.
const (
	LiveKitKey    = "devkey"
	LiveKitSecret = "secret"
)

// LiveKit is a running livekit-server.
type LiveKit struct {
	// URL is the signalling URL, ws://127.0.0.1:port.
	URL string
	// HTTPURL is the same address over http, for the room service API.
	HTTPURL string
	bin     string
	config  string
	proc    *Process
}

// LiveKitOptions configure StartLiveKit.
type LiveKitOptions struct {
	// WebhookURL, when set, receives the server's webhooks signed with
	// the dev key.
	WebhookURL string
}

// StartLiveKit runs bin in dev mode on free signalling, RTC TCP and UDP
// ports and waits until it answers.
func StartLiveKit(ctx context.Context, bin string, opts LiveKitOptions) (*LiveKit, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	tcp, err := FreePort()
	if err != nil {
		return nil, err
	}
	udp, err := FreeUDPPort()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "port: %d\nlog_level: warn\nrtc:\n  tcp_port: %d\n  udp_port: %d\n  use_external_ip: false\n", port, tcp, udp)
	b.WriteString("room:\n  empty_timeout: 30\n  departure_timeout: 1\n")
	if opts.WebhookURL != "" {
		fmt.Fprintf(&b, "webhook:\n  api_key: %s\n  urls:\n    - %s\n", LiveKitKey, opts.WebhookURL)
	}
	lk := &LiveKit{
		URL:     fmt.Sprintf("ws://127.0.0.1:%d", port),
		HTTPURL: fmt.Sprintf("http://127.0.0.1:%d", port),
		bin:     bin,
		config:  b.String(),
	}
	if err := lk.start(ctx); err != nil {
		return nil, err
	}
	return lk, nil
}

func (lk *LiveKit) start(ctx context.Context) error {
	p, err := startProcess(lk.bin, nil, "--dev", "--bind", "127.0.0.1", "--node-ip", "127.0.0.1",
		"--config-body", lk.config)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := waitHTTP(wctx, lk.HTTPURL, p); err != nil {
		p.Kill()
		return fmt.Errorf("livekit-server: %w", err)
	}
	lk.proc = p
	return nil
}

// Restart kills the server and starts it again on the same ports: every
// connection drops and the rooms are gone.
func (lk *LiveKit) Restart(ctx context.Context) error {
	lk.proc.Kill()
	return lk.start(ctx)
}

// Output is the server's log so far.
func (lk *LiveKit) Output() string { return lk.proc.Output() }

// Close stops the server.
func (lk *LiveKit) Close() { lk.proc.Stop(5 * time.Second) }
