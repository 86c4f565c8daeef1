# PostgreSQL 15 under Patroni, from Debian 12's packages: the same versions the
# drill installs (scripts/topology/packages.ts). Configured by
# deploy/ha/patroni.yml and PATRONI_* variables (docker-compose.ha.yml).
FROM debian:bookworm-slim

# No cluster of Debian's own: Patroni creates and owns the one it runs.
RUN mkdir -p /etc/postgresql-common \
  && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
  && apt-get update \
  && apt-get install -y --no-install-recommends postgresql-15 patroni curl ca-certificates \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /var/lib/postgresql/data \
  && chown postgres:postgres /var/lib/postgresql/data \
  && chmod 700 /var/lib/postgresql/data

COPY patroni.yml /etc/patroni/patroni.yml
COPY joma-database.sql /etc/patroni/joma-database.sql

USER postgres
EXPOSE 5432 8008
HEALTHCHECK --interval=5s --timeout=3s CMD curl -fs http://localhost:8008/health || exit 1
ENTRYPOINT ["patroni", "/etc/patroni/patroni.yml"]
