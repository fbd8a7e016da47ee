-- Dev bootstrap keys are marked, so processes outside dev mode refuse them
-- whatever the database holds. A dev-mode agent-api writes its key with
-- dev = true; rows it wrote before this column existed are the key
-- "dev-key", found by its hash.
ALTER TABLE api_keys ADD COLUMN dev boolean NOT NULL DEFAULT false;
UPDATE api_keys SET dev = true WHERE key_hash = sha256(convert_to('dev-key', 'UTF8'));
