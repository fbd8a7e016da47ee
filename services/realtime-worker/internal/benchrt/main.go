// Command benchrt measures the realtime path with real components: a
// LiveKit server, agent-api (local provider), PostgreSQL and the worker.
// It reports, over N final segments published into a room, the latency to
// the segment's row in PostgreSQL (its created_at) and to the segment being
// in agent-api's context, and over Q wake-word questions the latency from
// publishing the question to the first text of the lk.chat answer (a
// chunk with text, not the stream header) and to the legacy lk-chat-topic
// data packet carrying the whole answer. scripts/bench-realtime.sh runs
// it.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"sync"
	"time"

	"github.com/go-logr/logr"
	protologger "github.com/livekit/protocol/logger"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/realtime-worker/internal/app"
	"github.com/mithub/mithub/services/realtime-worker/internal/config"
	"github.com/mithub/mithub/services/realtime-worker/internal/room"
	"github.com/mithub/mithub/services/realtime-worker/internal/testenv"
	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx)
	stop()
	testenv.CleanupBinaries()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-realtime:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	dbURL := flag.String("database-url", "postgres://postgres@127.0.0.1:5432/mithub_bench_rt?sslmode=disable", "fresh database")
	redisURL := flag.String("redis-url", "redis://127.0.0.1:6379/14", "redis")
	n := flag.Int("segments", 1000, "final segments to publish")
	q := flag.Int("questions", 50, "wake-word questions")
	gap := flag.Duration("gap", 20*time.Millisecond, "pause between published segments")
	flag.Parse()
	lksdk.SetLogger(protologger.LogRLogger(logr.Discard()))

	lkBin, err := testenv.LiveKitBinary()
	if err != nil {
		return err
	}
	apiBin, err := testenv.AgentAPIBinary()
	if err != nil {
		return err
	}
	api, err := testenv.StartAgentAPI(ctx, apiBin, *dbURL, *redisURL)
	if err != nil {
		return err
	}
	defer api.Stop()
	lk, err := testenv.StartLiveKit(ctx, lkBin, testenv.LiveKitOptions{})
	if err != nil {
		return err
	}
	defer lk.Close()
	spool, err := os.MkdirTemp("", "bench-rt-spool")
	if err != nil {
		return err
	}
	defer os.RemoveAll(spool)
	queue := fmt.Sprintf("bot-bench-%d", time.Now().UnixNano())
	cfg, err := config.FromMap(map[string]string{
		"MITHUB_ENV": "dev", "MITHUB_DATABASE_URL": *dbURL, "MITHUB_REDIS_URL": *redisURL,
		"MITHUB_API_URL": api.URL, "MITHUB_LIVEKIT_URL": lk.URL, "MITHUB_WORKER_HTTP_ADDR": "127.0.0.1:0",
		"MITHUB_WORKER_SPOOL_DIR": spool, "MITHUB_WORKER_QUEUE": queue, "MITHUB_WORKER_LEASE_PREFIX": queue + ":",
		"MITHUB_WAKE_COOLDOWN": "1ms", "MITHUB_LOG_LEVEL": cmp.Or(os.Getenv("BENCH_LOG_LEVEL"), "warn"),
	})
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := app.New(wctx, cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel})))
	if err != nil {
		return err
	}
	var wwg sync.WaitGroup
	wwg.Go(func() { _ = w.Run(wctx) })
	defer wwg.Wait()
	defer cancel()

	const roomName = "bench-room"
	meetingID, err := w.Join(ctx, roomName, "")
	if err != nil {
		return err
	}
	chats := make(chan chatFirst, 1024)
	legacy := make(chan legacyChat, 1024)
	cb := lksdk.NewRoomCallback()
	cb.OnDataPacket = func(d lksdk.DataPacket, _ lksdk.DataReceiveParams) {
		u, ok := d.(*lksdk.UserDataPacket)
		if !ok || u.Topic != room.TopicLegacyChat {
			return
		}
		var m struct {
			ID      string `json:"id"`
			Message string `json:"message"`
		}
		if json.Unmarshal(u.Payload, &m) == nil && m.Message != "" {
			legacy <- legacyChat{streamID: m.ID, at: time.Now()}
		}
	}
	pub, err := lksdk.ConnectToRoom(lk.URL, lksdk.ConnectInfo{
		APIKey: testenv.LiveKitKey, APISecret: testenv.LiveKitSecret, RoomName: roomName,
		ParticipantIdentity: "speaker", ParticipantName: "Speaker",
	}, cb, lksdk.WithAutoSubscribe(false))
	if err != nil {
		return err
	}
	defer pub.Disconnect()
	_ = pub.RegisterTextStreamHandler(room.TopicChat, func(r *lksdk.TextStreamReader, _ string) {
		// The answer's first text, not its header: Read waits for a chunk.
		b := make([]byte, 1)
		if n, _ := r.Read(b); n > 0 {
			chats <- chatFirst{seg: r.Info.Attributes[room.AttrQuestionSegment], streamID: r.Info.Id, at: time.Now()}
		}
		_, _ = io.Copy(io.Discard, r)
	})
	for deadline := time.Now().Add(30 * time.Second); pub.GetParticipantByIdentity(cfg.BotIdentity) == nil; {
		if time.Now().After(deadline) {
			return fmt.Errorf("the bot did not appear in the room")
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, err := store.Open(ctx, *dbURL, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	client := apiclient.New(api.URL, config.DevAPIKey)

	// Warm up: the first send of a participant negotiates its publishing
	// connection; neither side should be measured on that.
	pub.LocalParticipant.SendText("Hey MitHub, are you there?", lksdk.StreamTextOptions{Topic: transcript.TopicTranscription,
		Attributes: map[string]string{transcript.AttrSegmentID: "warm-up", transcript.AttrFinal: "true"}})
	select {
	case <-chats:
	case <-time.After(30 * time.Second):
		return fmt.Errorf("no answer to the warm-up question")
	}
	time.Sleep(time.Second) // let the warm-up's sync and topic work settle

	// Context visibility: a poller records when each seq first shows up.
	sent := make([]time.Time, *n)
	visible := make([]time.Time, *n)
	pctx, pstop := context.WithTimeout(ctx, time.Duration(*n)*(*gap)+60*time.Second)
	var pwg sync.WaitGroup
	pwg.Go(func() {
		for pctx.Err() == nil {
			mc, err := client.Context(pctx, meetingID)
			now := time.Now()
			if err == nil {
				for i := int64(0); i < mc.Cursor && i < int64(*n); i++ { // seq 0 is the warm-up
					if visible[i].IsZero() {
						visible[i] = now
					}
				}
				if mc.Cursor >= int64(*n) {
					return
				}
			}
			time.Sleep(2 * time.Millisecond)
		}
	})
	for i := range *n {
		text := fmt.Sprintf("Segment %d: we keep reviewing the release plan and the 예산 item %d.", i, i)
		sent[i] = time.Now()
		pub.LocalParticipant.SendText(text, lksdk.StreamTextOptions{Topic: transcript.TopicTranscription,
			Attributes: map[string]string{transcript.AttrSegmentID: fmt.Sprintf("b-%d", i), transcript.AttrFinal: "true"}})
		time.Sleep(*gap)
	}
	pwg.Wait()
	pstop()

	ts, err := st.ListTranscripts(ctx, w.TenantID(), meetingID, -1, 0)
	if err != nil {
		return err
	}
	var toRow, toCtx []time.Duration
	for _, t := range ts {
		var i int
		if _, err := fmt.Sscanf(t.SegmentID, "b-%d", &i); err != nil || i >= *n {
			continue
		}
		toRow = append(toRow, t.CreatedAt.Sub(sent[i]))
		if t.Seq >= 1 && !visible[t.Seq-1].IsZero() {
			toCtx = append(toCtx, visible[t.Seq-1].Sub(sent[i]))
		}
	}

	// Wake-word questions.
	// Drain the warm-up's legacy packet.
	select {
	case <-legacy:
	case <-time.After(5 * time.Second):
	}
	var toAnswer, toLegacy []time.Duration
	for i := range *q {
		seg := fmt.Sprintf("q-%d", i)
		at := time.Now()
		pub.LocalParticipant.SendText("Hey MitHub, what is the status of the release plan?", lksdk.StreamTextOptions{
			Topic: transcript.TopicTranscription, Attributes: map[string]string{transcript.AttrSegmentID: seg, transcript.AttrFinal: "true"}})
		timeout := time.After(30 * time.Second)
		streamID := ""
		early := map[string]time.Time{} // legacy packets seen before their stream's first text
	wait:
		for {
			select {
			case c := <-chats:
				if c.seg == seg && streamID == "" {
					streamID = c.streamID
					toAnswer = append(toAnswer, c.at.Sub(at))
					if t, ok := early[streamID]; ok {
						toLegacy = append(toLegacy, t.Sub(at))
						break wait
					}
				}
			case l := <-legacy:
				if streamID == "" {
					early[l.streamID] = l.at
					continue
				}
				if l.streamID == streamID {
					toLegacy = append(toLegacy, l.at.Sub(at))
					break wait
				}
			case <-timeout:
				return fmt.Errorf("no answer (lk.chat text and legacy packet) to question %d", i)
			}
		}
	}
	fmt.Printf("segments published: %d, rows stored: %d\n", *n, len(ts))
	report("final segment published -> row in PostgreSQL", toRow)
	report("final segment published -> in agent-api context", toCtx)
	report("wake-word segment -> first lk.chat answer text in the room (local provider)", toAnswer)
	report("wake-word segment -> legacy lk-chat-topic packet (whole answer)", toLegacy)
	return nil
}

type chatFirst struct {
	seg, streamID string
	at            time.Time
}

type legacyChat struct {
	streamID string
	at       time.Time
}

func report(name string, ds []time.Duration) {
	if len(ds) == 0 {
		fmt.Printf("%-72s no samples\n", name)
		return
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	pct := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	fmt.Printf("%-72s n=%d p50=%s p99=%s max=%s\n", name, len(ds),
		pct(0.50).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond), ds[len(ds)-1].Round(100*time.Microsecond))
}
