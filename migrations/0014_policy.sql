-- Per-account policy overrides (src/policy/): the bounds an operator sets for one account in place
-- of the configured ones (LINK_MAX_EXPIRY_SECONDS, …, REQUEST_MAX_BYTES). One JSON object holding
-- only the bounds overridden, under their API names ({"linkMaxDownloads": 10,
-- "linkRequirePassword": false}): a number or true sets the account's bound, false lifts it for
-- the account, and a bound not named follows the configuration. NULL: no override at all (every
-- existing account). The nine are always read together and never searched, so one column keeps
-- every read of an account one column longer, not nine. No existing row is rewritten here.
ALTER TABLE accounts ADD COLUMN policy TEXT CHECK (policy IS NULL OR json_type(policy) = 'object');
