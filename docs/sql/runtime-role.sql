-- The service's runtime role: data rights only (SELECT, INSERT, UPDATE, DELETE), no DDL.
-- Run as the role that owns the schema (the one `npm run migrate` runs as), after
-- `npm run migrate`, and again after each release that adds tables (or rely on the default
-- privileges below, which cover tables that role creates later). Create the login first:
--   CREATE ROLE payments_runtime LOGIN PASSWORD '...';
-- then start the service with DATABASE_URL naming payments_runtime and MIGRATE_ON_START=false.

-- Nobody but the owner creates objects in public (PostgreSQL 15+ already does so by default).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

-- The service's own tables: rows only. The migration record is read at boot, never written.
GRANT USAGE ON SCHEMA public TO payments_runtime;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO payments_runtime;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO payments_runtime;
REVOKE INSERT, UPDATE, DELETE ON schema_migrations FROM payments_runtime;

-- graphile-worker: its job tables (rows only) and its functions (add_job and friends run as
-- the caller). Its migration record is read when a worker starts, never written.
GRANT USAGE ON SCHEMA graphile_worker TO payments_runtime;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA graphile_worker TO payments_runtime;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA graphile_worker TO payments_runtime;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA graphile_worker TO payments_runtime;
REVOKE INSERT, UPDATE, DELETE ON graphile_worker.migrations FROM payments_runtime;
-- graphile-worker turns row-level security on for its private tables, so that only their owner
-- reaches them; the runtime role gets a policy that lets it reach every row of each.
DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'graphile_worker' AND rowsecurity LOOP
    EXECUTE format('DROP POLICY IF EXISTS payments_runtime_all ON graphile_worker.%I', t.tablename);
    EXECUTE format('CREATE POLICY payments_runtime_all ON graphile_worker.%I TO payments_runtime USING (true) WITH CHECK (true)', t.tablename);
  END LOOP;
END $$;

-- Tables and sequences that later migrations create get the same rights.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO payments_runtime;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO payments_runtime;
ALTER DEFAULT PRIVILEGES IN SCHEMA graphile_worker GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO payments_runtime;
ALTER DEFAULT PRIVILEGES IN SCHEMA graphile_worker GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO payments_runtime;
ALTER DEFAULT PRIVILEGES IN SCHEMA graphile_worker GRANT EXECUTE ON FUNCTIONS TO payments_runtime;
