-- pkg/textutil.Terms now cuts a word where Hangul meets another script's
-- letters and drops the particle written onto a foreign word ("sync는"
-- is "sync", "API를" is "api") and strips particles from digit-led Korean
-- words ("25일까지" is "25일"). Terms stored by the earlier tokenizer
-- would no longer match the same words in a query: nodes with Hangul in
-- them go back to NULL terms, and the store fills them again, as it fills
-- every new node, before it next searches their scope.
UPDATE memory_nodes SET terms = NULL WHERE terms IS NOT NULL AND text ~ '[가-힣]';
