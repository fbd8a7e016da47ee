// Package webhook receives LiveKit's webhooks: it verifies each request's
// signature with the API secret and turns room_started into a bot join and
// room_finished into the end of the room's meeting.
package webhook
