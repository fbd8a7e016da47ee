package room

import (
	"context"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"github.com/mithub/mithub/services/realtime-worker/internal/transcript"
)

// Asking the server about participants the bot has not seen yet.
const (
	// askServerTimeout bounds one ListParticipants call.
	askServerTimeout = 2 * time.Second
	// askServerAgain is how long a track or sender the server did not
	// know either, or could not be asked about, is not asked about again.
	askServerAgain = time.Second
	// ownerGrace is how long after a transcribed track was first found
	// unknown its transcript waits for the track's owner to appear (a
	// track published just before its first transcript may be unknown to
	// the server too for a moment), asking every ownerPoll, before the
	// segment is attributed to its sender.
	ownerGrace = 1500 * time.Millisecond
	ownerPoll  = 250 * time.Millisecond
)

// roster names senders and the owners of transcribed tracks. It looks in
// the participant list of the bot's connection first; a participant that
// joined or published just before its transcript arrived may not be in
// that list yet (the server sends participant updates in batches), so the
// roster then asks the server (RoomService ListParticipants) instead of
// attributing the segment to its sender (the STT agent) or to a nameless
// identity. It is used by the session goroutine only.
type roster struct {
	list   func(ctx context.Context) ([]*livekit.ParticipantInfo, error)
	tracks map[string]transcript.Participant // track sid → owner, from the server
	names  map[string]string                 // identity → name, from the server
	missed map[string]time.Time              // what the server did not know, when asked
	// unknown holds when each track was first found unknown; grace and
	// poll are ownerGrace and ownerPoll.
	unknown     map[string]time.Time
	grace, poll time.Duration
}

func newRoster(list func(ctx context.Context) ([]*livekit.ParticipantInfo, error)) *roster {
	return &roster{list: list, tracks: map[string]transcript.Participant{}, names: map[string]string{}, missed: map[string]time.Time{},
		unknown: map[string]time.Time{}, grace: ownerGrace, poll: ownerPoll}
}

// serverList lists a room's participants through the RoomService API.
func serverList(set Settings, room string) func(ctx context.Context) ([]*livekit.ParticipantInfo, error) {
	return func(ctx context.Context) ([]*livekit.ParticipantInfo, error) {
		rs := lksdk.NewRoomServiceClient(set.LiveKitURL, set.APIKey, set.APISecret)
		res, err := rs.ListParticipants(ctx, &livekit.ListParticipantsRequest{Room: room})
		if err != nil {
			return nil, err
		}
		return res.GetParticipants(), nil
	}
}

// ask refreshes what the server knows, unless key was missed recently.
func (r *roster) ask(key string) error {
	if at, ok := r.missed[key]; ok && time.Since(at) < askServerAgain {
		return nil
	}
	// Marked before asking: a server that cannot be reached is not asked
	// again for every segment (a session storing what it still has queued
	// after the room is gone must not wait on it each time).
	r.missed[key] = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), askServerTimeout)
	defer cancel()
	ps, err := r.list(ctx)
	if err != nil {
		return err
	}
	for _, p := range ps {
		r.names[p.GetIdentity()] = p.GetName()
		for _, tr := range p.GetTracks() {
			r.tracks[tr.GetSid()] = transcript.Participant{Identity: p.GetIdentity(), Name: p.GetName()}
		}
	}
	return nil
}

// trackOwner finds the participant that published a track. A track
// neither the connection nor the server knows is waited for, asking again
// every poll, until grace has passed since it was first found unknown;
// later segments of a track still unknown after that do not wait.
func (r *roster) trackOwner(lk *lksdk.Room, sid string) (transcript.Participant, bool, error) {
	if p, ok := trackOwner(lk, sid); ok {
		return p, true, nil
	}
	if p, ok := r.tracks[sid]; ok {
		return p, true, nil
	}
	err := r.ask("track:" + sid)
	if p, ok := r.tracks[sid]; ok || err != nil {
		return p, ok, err
	}
	first, ok := r.unknown[sid]
	if !ok {
		first = time.Now()
		r.unknown[sid] = first
	}
	for left := r.grace - time.Since(first); left > 0; left = r.grace - time.Since(first) {
		time.Sleep(min(r.poll, left))
		if p, ok := trackOwner(lk, sid); ok {
			return p, true, nil
		}
		delete(r.missed, "track:"+sid)
		if err := r.ask("track:" + sid); err != nil {
			return transcript.Participant{}, false, err
		}
		if p, ok := r.tracks[sid]; ok {
			return p, true, nil
		}
	}
	return transcript.Participant{}, false, nil
}

// participant names a sender by identity.
func (r *roster) participant(lk *lksdk.Room, identity string) (transcript.Participant, error) {
	p := participantOf(lk, identity)
	if p.Name != "" || (lk != nil && lk.GetParticipantByIdentity(identity) != nil) {
		return p, nil
	}
	if name, ok := r.names[identity]; ok {
		p.Name = name
		return p, nil
	}
	err := r.ask("identity:" + identity)
	p.Name = r.names[identity]
	return p, err
}
