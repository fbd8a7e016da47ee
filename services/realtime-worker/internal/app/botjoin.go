package app

import mithubv1 "github.com/mithub/mithub/pkg/gen/mithub/v1"

// mithubJoin is the bot:join payload of a room started in LiveKit.
func mithubJoin(room, tenantID string) *mithubv1.BotJoinTask {
	return &mithubv1.BotJoinTask{RoomName: room, TenantId: tenantID}
}
