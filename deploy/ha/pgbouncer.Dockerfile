# PgBouncer 1.21 or later, which keeps Joma's named prepared statements apart
# in transaction mode (max_prepared_statements): Debian 13's package (1.24),
# so Joma keeps DB_PREPARED_STATEMENTS=true behind it. Debian 12's 1.18 cannot:
# the drill runs it in transaction mode too, with DB_PREPARED_STATEMENTS=false.
FROM debian:trixie-slim

RUN apt-get update \
  && apt-get install -y --no-install-recommends pgbouncer \
  && rm -rf /var/lib/apt/lists/* \
  && (id -u postgres > /dev/null 2>&1 || useradd --system --no-create-home postgres) \
  && mkdir -p /etc/pgbouncer \
  && chown postgres /etc/pgbouncer

COPY pgbouncer.ini /etc/pgbouncer/pgbouncer.ini

USER postgres
EXPOSE 6432
# The user list from the environment at start (never in the image), then PgBouncer.
ENTRYPOINT ["sh", "-c", "printf '\"joma\" \"%s\"\\n' \"$JOMA_DB_PASSWORD\" > /etc/pgbouncer/userlist.txt && exec pgbouncer /etc/pgbouncer/pgbouncer.ini"]
