-- pkg/textutil.Terms now reads a Hangul spelling of an English word as
-- the English word ("테스트를" is "test", "대시보드는" "dashboard"), so a
-- question in one language finds a turn in the other. Terms stored by
-- the earlier tokenizer keep the Hangul and would not match the query's
-- English term: nodes with Hangul in them go back to NULL terms, and the
-- store fills them again, as it fills every new node, before it next
-- searches their scope.
UPDATE memory_nodes SET terms = NULL WHERE terms IS NOT NULL AND text ~ '[가-힣]';
