// Command chaospub is the speaker that scripts/chaos.sh keeps in a LiveKit
// room while it injects faults: it publishes one final transcription
// segment (an lk.transcription text stream, English and Korean in turn)
// per interval and appends to a log one line per segment with its send
// time and whether the bot was in the room then, and one line per arrival
// or departure of the bot, as the server's participant list shows them
// (polled every 100 ms; a new participant id is a new arrival):
//
//	ready <unix ms>
//	bot joined <unix ms> <participant sid>
//	bot left <unix ms>
//	seg <segment id> <unix ms> <1 if the bot was in the room, else 0>
//	got <segment id> <unix ms>
//
// A second participant, the witness, listens in the same room and logs a
// got line for each segment LiveKit delivered to it, so that a segment
// the bot never stored can be told from one that never reached the room.
// It runs until SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/livekit/protocol/livekit"
	protologger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

var lines = []string{
	"We keep the release on Thursday and freeze the API today.",
	"배포는 목요일로 유지하고 API는 오늘 동결하겠습니다.",
	"I'll update the migration guide by Friday.",
	"마이그레이션 가이드는 제가 금요일까지 업데이트하겠습니다.",
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaospub:", err)
		os.Exit(1)
	}
}

// presence tracks whether the bot is in the room.
type presence struct {
	mu  sync.Mutex
	sid string // the bot's participant id, "" while it is away
	log *os.File
}

// set records the bot's participant id ("" when it is not listed).
func (p *presence) set(sid string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sid == sid {
		return
	}
	now := time.Now().UnixMilli()
	if p.sid != "" {
		fmt.Fprintf(p.log, "bot left %d\n", now)
	}
	if sid != "" {
		fmt.Fprintf(p.log, "bot joined %d %s\n", now, sid)
	}
	p.sid = sid
}

// watch polls the server's participant list until ctx ends.
func (p *presence) watch(ctx context.Context, rs *lksdk.RoomServiceClient, room, bot string) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		res, err := rs.ListParticipants(rctx, &livekit.ListParticipantsRequest{Room: room})
		cancel()
		if err == nil {
			sid := ""
			for _, pi := range res.GetParticipants() {
				if pi.GetIdentity() == bot && pi.GetState() != livekit.ParticipantInfo_DISCONNECTED {
					sid = pi.GetSid()
				}
			}
			p.set(sid)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// segment logs a segment sent now together with the bot's presence.
func (p *presence) segment(id string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	in := 0
	if p.sid != "" {
		in = 1
	}
	fmt.Fprintf(p.log, "seg %s %d %d\n", id, at.UnixMilli(), in)
}

// got logs a segment the witness received, with the bytes of its text.
func (p *presence) got(id string, at time.Time, bytes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.log, "got %s %d %d\n", id, at.UnixMilli(), bytes)
}

// witness joins the room as a listener that logs every transcription
// segment delivered to it.
func witness(url, room string, p *presence) (*lksdk.Room, error) {
	w := lksdk.NewRoom(lksdk.NewRoomCallback())
	if err := w.RegisterTextStreamHandler(transcript.TopicTranscription, func(r *lksdk.TextStreamReader, _ string) {
		text := r.ReadAll()
		p.got(r.Info.Attributes[transcript.AttrSegmentID], time.Now(), len(text))
	}); err != nil {
		return nil, err
	}
	err := w.Join(url, lksdk.ConnectInfo{
		APIKey: "devkey", APISecret: "secret", RoomName: room,
		ParticipantIdentity: "chaos-witness", ParticipantName: "chaos witness",
	}, lksdk.WithAutoSubscribe(false))
	return w, err
}

func run(ctx context.Context) error {
	url := flag.String("url", "ws://127.0.0.1:17880", "LiveKit URL")
	room := flag.String("room", "chaos-room", "room")
	identity := flag.String("identity", "chaos-speaker", "participant identity")
	bot := flag.String("bot", "mithub-bot", "the bot's identity")
	interval := flag.Duration("interval", 200*time.Millisecond, "time between two segments")
	logPath := flag.String("log", "", "log file (required)")
	prefix := flag.String("prefix", "rt", "segment id prefix")
	flag.Parse()
	if *logPath == "" {
		return fmt.Errorf("--log is required")
	}
	lksdk.SetLogger(protologger.LogRLogger(logr.Discard()))
	f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	p := &presence{log: f}
	lk, err := lksdk.ConnectToRoom(*url, lksdk.ConnectInfo{
		APIKey: "devkey", APISecret: "secret", RoomName: *room,
		ParticipantIdentity: *identity, ParticipantName: "박서연 (chaos speaker)",
	}, lksdk.NewRoomCallback(), lksdk.WithAutoSubscribe(false))
	if err != nil {
		return err
	}
	defer lk.Disconnect()
	wit, err := witness(*url, *room, p)
	if err != nil {
		return fmt.Errorf("witness: %w", err)
	}
	defer wit.Disconnect()
	httpURL := "http" + strings.TrimPrefix(*url, "ws")
	var wg sync.WaitGroup
	defer wg.Wait()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	wg.Go(func() { p.watch(wctx, lksdk.NewRoomServiceClient(httpURL, "devkey", "secret"), *room, *bot) })
	fmt.Fprintf(f, "ready %d\n", time.Now().UnixMilli())

	t := time.NewTicker(*interval)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		id := fmt.Sprintf("%s-%06d", *prefix, n)
		at := time.Now()
		lk.LocalParticipant.SendText(fmt.Sprintf("%s (%d)", lines[n%len(lines)], n), lksdk.StreamTextOptions{
			Topic:      transcript.TopicTranscription,
			Attributes: map[string]string{transcript.AttrSegmentID: id, transcript.AttrFinal: "true"},
		})
		p.segment(id, at)
	}
}
