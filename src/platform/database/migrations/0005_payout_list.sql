-- GET /v2/payouts: the name filters match any substring of the full name, case-insensitively
-- (lower(name) LIKE '%...%'), which no B-tree can serve; trigram GIN indexes can. The member
-- condition is combined with them by a bitmap AND on payouts_member_creation_idx. Other filters
-- and sorts are served by the indexes of 0004 or sort one member's matching rows.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX payouts_sender_name_trgm_idx ON payouts USING gin (lower(sender_name) gin_trgm_ops);
CREATE INDEX payouts_beneficiary_name_trgm_idx ON payouts USING gin (lower(beneficiary_name) gin_trgm_ops);
