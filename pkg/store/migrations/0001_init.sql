-- The whole MitHub data model (docs/architecture.md §3). Every tenant-owned row carries
-- tenant_id and every query filters on it.

CREATE TABLE tenants (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text NOT NULL UNIQUE CHECK (name <> ''),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    key_hash   bytea NOT NULL UNIQUE,
    name       text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id);

CREATE TABLE meetings (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    room_name  text NOT NULL DEFAULT '',
    title      text NOT NULL DEFAULT '',
    language   text NOT NULL DEFAULT '',
    status     text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
    started_at timestamptz NOT NULL DEFAULT now(),
    ended_at   timestamptz,
    metadata   jsonb NOT NULL DEFAULT '{}'::jsonb,
    -- next_seq is the number of stored transcripts; ingest takes the row
    -- lock, assigns seq from it and advances it in the same transaction.
    next_seq   integer NOT NULL DEFAULT 0,
    tokens     bigint NOT NULL DEFAULT 0
);
CREATE INDEX meetings_tenant_started_idx ON meetings (tenant_id, started_at DESC);
CREATE INDEX meetings_tenant_room_idx ON meetings (tenant_id, room_name) WHERE status = 'active';

CREATE TABLE transcripts (
    id           bigserial PRIMARY KEY,
    tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    meeting_id   uuid NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
    seq          integer NOT NULL CHECK (seq >= 0),
    segment_id   text NOT NULL CHECK (segment_id <> ''),
    speaker_id   text NOT NULL DEFAULT '',
    speaker_name text NOT NULL DEFAULT '',
    text         text NOT NULL,
    start_ms     bigint NOT NULL DEFAULT 0,
    end_ms       bigint NOT NULL DEFAULT 0,
    confidence   real NOT NULL DEFAULT 1,
    tokens       integer NOT NULL DEFAULT 0,
    source       text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (meeting_id, segment_id),
    UNIQUE (meeting_id, seq)
);

CREATE TABLE topics (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    meeting_id  uuid NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
    seq         integer NOT NULL,
    title       text NOT NULL DEFAULT '',
    summary     text NOT NULL DEFAULT '',
    keywords    text[] NOT NULL DEFAULT '{}',
    start_seq   integer NOT NULL,
    end_seq     integer NOT NULL,
    start_ms    bigint NOT NULL DEFAULT 0,
    end_ms      bigint NOT NULL DEFAULT 0,
    -- real[] works everywhere; the pgvector column and HNSW index are added
    -- by the store when the vector extension is available.
    embedding   real[],
    merged_from uuid[] NOT NULL DEFAULT '{}',
    version     integer NOT NULL DEFAULT 1,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (meeting_id, seq),
    CHECK (end_seq >= start_seq)
);
CREATE INDEX topics_tenant_idx ON topics (tenant_id);

CREATE TABLE agent_checkpoints (
    thread_id  text NOT NULL,
    tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    meeting_id uuid NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
    step       integer NOT NULL,
    state      jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, thread_id, step)
);
CREATE INDEX agent_checkpoints_meeting_idx ON agent_checkpoints (meeting_id);

CREATE TABLE pull_requests (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id          uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    meeting_id         uuid NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
    project            text NOT NULL DEFAULT '',
    status             text NOT NULL DEFAULT 'queued'
                       CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'approved', 'rejected')),
    title              text NOT NULL DEFAULT '',
    markdown           text NOT NULL DEFAULT '',
    agenda             jsonb NOT NULL DEFAULT '[]'::jsonb,
    decisions          jsonb NOT NULL DEFAULT '[]'::jsonb,
    action_items       jsonb NOT NULL DEFAULT '[]'::jsonb,
    open_questions     jsonb NOT NULL DEFAULT '[]'::jsonb,
    memory_updates     jsonb NOT NULL DEFAULT '[]'::jsonb,
    topic_snapshot     jsonb NOT NULL DEFAULT '{}'::jsonb,
    last_transcript_id bigint NOT NULL DEFAULT 0,
    requested_by       text NOT NULL DEFAULT '',
    attempts           integer NOT NULL DEFAULT 0,
    error              text NOT NULL DEFAULT '',
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    started_at         timestamptz,
    finished_at        timestamptz,
    reviewed_at        timestamptz
);
CREATE INDEX pull_requests_meeting_idx ON pull_requests (tenant_id, meeting_id, created_at DESC);
-- At most one queued or running PR per meeting.
CREATE UNIQUE INDEX pull_requests_one_open_idx ON pull_requests (meeting_id)
    WHERE status IN ('queued', 'running');

CREATE TABLE memory_bank (
    tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    project    text NOT NULL CHECK (project <> ''),
    category   text NOT NULL CHECK (category IN
               ('00-project-overview', '01-summary', '02-progress', '03-decisions', '04-lessons')),
    content    text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, project, category)
);

CREATE TABLE project_status (
    tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    project    text NOT NULL,
    meeting_id uuid NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
    content    text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, project, meeting_id)
);

-- A conversation is a meeting or a plain chat session; memory_nodes hold its
-- hierarchical summaries (docs/architecture.md §7).
CREATE TABLE conversations (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('meeting', 'chat')),
    meeting_id uuid REFERENCES meetings(id) ON DELETE CASCADE,
    title      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_tenant_idx ON conversations (tenant_id, created_at DESC);

CREATE TABLE memory_nodes (
    id              bigserial PRIMARY KEY,
    tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    level           integer NOT NULL CHECK (level >= 0),
    seq             integer NOT NULL CHECK (seq >= 0),
    text            text NOT NULL,
    tokens          integer NOT NULL DEFAULT 0,
    child_ids       bigint[] NOT NULL DEFAULT '{}',
    embedding       real[],
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (conversation_id, level, seq)
);
