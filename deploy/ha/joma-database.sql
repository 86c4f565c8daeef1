-- Joma's role and database on a new cluster's primary (docker-compose.ha.yml's
-- db-init service; the drill, scripts/topology/sql.ts). Safe to run again.
--
--   psql "$SUPERUSER_URL" -v ON_ERROR_STOP=1 -v joma_password="$JOMA_DB_PASSWORD" -f joma-database.sql
--
-- The role carries the session settings Joma otherwise sends as startup
-- `options`, which PgBouncer does not pass on (deploy/ha/pgbouncer.ini):
-- keep statement_timeout equal to Joma's DB_STATEMENT_TIMEOUT_MS.
SELECT format('CREATE ROLE joma LOGIN PASSWORD %L', :'joma_password')
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'joma') \gexec
ALTER ROLE joma SET timezone = 'UTC';
ALTER ROLE joma SET statement_timeout = '5s';
ALTER ROLE joma SET idle_in_transaction_session_timeout = '60s';
SELECT 'CREATE DATABASE joma OWNER joma'
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'joma') \gexec
