// Package room runs the bot's LiveKit room sessions. A Manager starts one
// Session per room (at most one per room across replicas, through a Redis
// lease, which a replica refused a room keeps trying until it is free);
// one goroutine owns each session, its LiveKit connection and its
// ctx, and the SDK's callbacks only push events to that goroutine's
// channel. The session stores final transcript segments through the
// ingest writer, answers wake-word questions into the room as lk.chat text
// streams, reconnects after a dropped connection, and ends the meeting
// when the room ends.
package room
