-- Replicas of agent-api that share a meeting (docs/scale-out.md). The
-- meeting row carries every counter a replica compares its cached context
-- with: next_seq (turns), topic_version (bumped by every topic save),
-- l1_end_pass (the last seq the end-of-meeting pass covered, -1 before)
-- and ended_at. Changes are announced on the mithub_meetings channel as
-- tenant/meeting/next_seq/topic_version/l1_end_pass/ended: those of the
-- topics, the end pass and the end by this trigger, when the writing
-- transaction commits; those of next_seq (every ingest batch) by the
-- writing process right after its commit, coalesced, so that ingest
-- commits do not queue on the notification lock (pkg/store/notify.go).
ALTER TABLE meetings
    ADD COLUMN topic_version bigint NOT NULL DEFAULT 0,
    ADD COLUMN l1_end_pass integer NOT NULL DEFAULT -1;

CREATE FUNCTION mithub_notify_meeting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('mithub_meetings', NEW.tenant_id::text || '/' || NEW.id::text || '/' ||
        NEW.next_seq::text || '/' || NEW.topic_version::text || '/' || NEW.l1_end_pass::text || '/' ||
        CASE WHEN NEW.ended_at IS NULL THEN '0' ELSE '1' END);
    RETURN NULL;
END
$$;

CREATE TRIGGER meetings_notify AFTER UPDATE ON meetings FOR EACH ROW
    WHEN (OLD.topic_version IS DISTINCT FROM NEW.topic_version
       OR OLD.l1_end_pass IS DISTINCT FROM NEW.l1_end_pass
       OR OLD.ended_at IS DISTINCT FROM NEW.ended_at)
    EXECUTE FUNCTION mithub_notify_meeting();
