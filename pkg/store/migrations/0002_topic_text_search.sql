-- Full-text search over topic titles, summaries and keywords. The 'simple'
-- configuration keeps words as written (Korean and English alike); the
-- query side uses prefix matches so a stem finds its forms with particles.
-- array_to_string is only STABLE in general, but for text[] it cannot
-- change, so the wrapper may be IMMUTABLE, and the document is a stored
-- generated column: searches rank it without recomputing it.
CREATE FUNCTION mithub_topic_doc(title text, summary text, keywords text[])
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT to_tsvector('simple'::regconfig, title || ' ' || summary || ' ' || array_to_string(keywords, ' ')) $$;

ALTER TABLE topics ADD COLUMN doc tsvector
    GENERATED ALWAYS AS (mithub_topic_doc(title, summary, keywords)) STORED;

CREATE INDEX topics_doc_idx ON topics USING gin (doc);
