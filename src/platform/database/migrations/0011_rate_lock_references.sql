-- Every rate lock of a corridor pointed at the same corridor row through a foreign key, so each
-- insert share-locked that one row (FOR KEY SHARE), and under load these locks pile up on it. The
-- key goes, as for payouts in 0007: the service reads the corridor (active) before it locks a
-- rate, and corridors are never deleted (the trigger below refuses it; a corridor is suspended,
-- not removed).
ALTER TABLE settlement_rates DROP CONSTRAINT settlement_rates_source_member_id_destination_member_id_de_fkey;
CREATE TRIGGER corridors_never_deleted BEFORE DELETE OR TRUNCATE ON corridors
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_delete();
