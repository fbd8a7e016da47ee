package room

import (
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// maxChunk is the most text bytes in one stream chunk (LiveKit's limit is
// 15,000).
const maxChunk = 15000

// packet carries a prepared data packet through PublishDataPacket.
type packet struct{ p *livekit.DataPacket }

func (p packet) ToProto() *livekit.DataPacket { return p.p }

// chatStream writes one text stream (header, chunks, trailer) as reliable
// data packets. The SDK's stream writer waits for the data channel's
// buffer to empty before every chunk, which costs a delayed SCTP
// acknowledgement (about 200 ms) per chunk; answers are short, so the
// packets go out at once and the first words reach the room immediately.
type chatStream struct {
	lp  *lksdk.LocalParticipant
	id  string
	idx uint64
}

// openChatStream publishes the header of a text stream on topic.
func openChatStream(lp *lksdk.LocalParticipant, topic string, attrs map[string]string) (*chatStream, error) {
	s := &chatStream{lp: lp, id: uuid.NewString()}
	err := s.send(&livekit.DataPacket{Value: &livekit.DataPacket_StreamHeader{StreamHeader: &livekit.DataStream_Header{
		StreamId: s.id, Timestamp: time.Now().UnixMilli(), Topic: topic, MimeType: "text/plain",
		Attributes:    attrs,
		ContentHeader: &livekit.DataStream_Header_TextHeader{TextHeader: &livekit.DataStream_TextHeader{OperationType: livekit.DataStream_CREATE}},
	}}})
	return s, err
}

// write appends text, split into chunks on rune boundaries.
func (s *chatStream) write(text string) error {
	for len(text) > 0 {
		n := min(len(text), maxChunk)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n--
		}
		err := s.send(&livekit.DataPacket{Value: &livekit.DataPacket_StreamChunk{StreamChunk: &livekit.DataStream_Chunk{
			StreamId: s.id, ChunkIndex: s.idx, Content: []byte(text[:n]),
		}}})
		if err != nil {
			return err
		}
		s.idx++
		text = text[n:]
	}
	return nil
}

// close ends the stream.
func (s *chatStream) close() error {
	return s.send(&livekit.DataPacket{Value: &livekit.DataPacket_StreamTrailer{StreamTrailer: &livekit.DataStream_Trailer{StreamId: s.id}}})
}

func (s *chatStream) send(p *livekit.DataPacket) error {
	return s.lp.PublishDataPacket(packet{p}, lksdk.WithDataPublishReliable(true))
}
