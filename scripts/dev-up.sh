#!/usr/bin/env bash
# Makes PostgreSQL and Redis reachable on 127.0.0.1 for development, CI and tests,
# and installs what the realtime worker's speech-to-text builds and is tested
# with: libopus (cgo), libpocketsphinx with its US English model, espeak-ng
# (the speech tests' voices) and pkg-config.
#
# For each server: use it if it already answers; otherwise start Debian's
# installed-but-stopped server; otherwise install it with apt and start it.
# Then create the application database. Safe to run any number of times.
#
# Environment:
#   MITHUB_DB_NAME       database to create (default: mithub)
#   DEV_UP_WAIT_SECONDS  how long to wait for each server to answer (default: 30)
set -euo pipefail

readonly PG_HOST=127.0.0.1
readonly PG_PORT=5432
readonly REDIS_HOST=127.0.0.1
readonly REDIS_PORT=6379
readonly DB_NAME="${MITHUB_DB_NAME:-mithub}"
readonly WAIT_SECONDS="${DEV_UP_WAIT_SECONDS:-30}"

APT_UPDATED=0

log() { printf 'dev-up: %s\n' "$*"; }
die() { printf 'dev-up: error: %s\n' "$*" >&2; exit 1; }

have() { command -v "$1" >/dev/null 2>&1; }

# tcp_open HOST PORT succeeds when something accepts connections on HOST:PORT.
tcp_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" >/dev/null 2>&1
}

as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then
    "$@"
  elif have sudo; then
    sudo "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

apt_install() {
  have apt-get || die "apt-get not found; install $* by hand"
  if [[ "${APT_UPDATED}" -eq 0 ]]; then
    log "apt-get update"
    as_root apt-get update -qq
    APT_UPDATED=1
  fi
  log "installing $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# wait_for NAME CHECK_FUNCTION waits until CHECK_FUNCTION succeeds, at most WAIT_SECONDS.
wait_for() {
  local name="$1" check="$2" i
  for ((i = 0; i < WAIT_SECONDS; i++)); do
    if "${check}"; then
      return 0
    fi
    sleep 1
  done
  die "${name} did not answer within ${WAIT_SECONDS}s (raise DEV_UP_WAIT_SECONDS, or check the server's log)"
}

# ---------------------------------------------------------------- PostgreSQL

pg_answers() {
  if have pg_isready; then
    pg_isready -q -h "${PG_HOST}" -p "${PG_PORT}" -t 2
  else
    tcp_open "${PG_HOST}" "${PG_PORT}"
  fi
}

pg_version() {
  ls /etc/postgresql 2>/dev/null | sort -V | tail -1 || true
}

pg_installed() {
  have pg_ctlcluster && [[ -n "$(pg_version)" ]]
}

# pg_ensure_cluster creates the default cluster when the server package is
# installed but no cluster exists (e.g. images that disable createcluster).
pg_ensure_cluster() {
  if [[ -n "$(pg_version)" ]]; then
    return
  fi
  local version
  version="$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -1 || true)"
  [[ -n "${version}" ]] || die "postgresql is installed but no server version found in /usr/lib/postgresql"
  log "postgres: creating cluster ${version}/main"
  as_root pg_createcluster "${version}" main >/dev/null
}

pg_start() {
  local version
  version="$(pg_version)"
  # Exit status 0: the cluster runs (perhaps still starting, or apt started it).
  if pg_ctlcluster "${version}" main status >/dev/null 2>&1; then
    log "postgres: cluster ${version}/main is already running; waiting for it"
    return
  fi
  log "postgres: starting cluster ${version}/main"
  as_root pg_ctlcluster --skip-systemctl-redirect "${version}" main start
}

ensure_postgres() {
  if pg_answers; then
    log "postgres: running on ${PG_HOST}:${PG_PORT}"
    return
  fi
  pg_ensure_cluster
  pg_start
  wait_for "postgres on ${PG_HOST}:${PG_PORT}" pg_answers
  log "postgres: running on ${PG_HOST}:${PG_PORT}"
}

# pg_trust_local puts trust lines for 127.0.0.1 and ::1 first in the local
# cluster's pg_hba.conf (first match wins) and reloads it, so that user
# postgres connects over TCP without a password.
pg_trust_local() {
  local hba cidr line
  hba="/etc/postgresql/$(pg_version)/main/pg_hba.conf"
  [[ -f "${hba}" ]] || die "${hba} not found"
  for cidr in ::1/128 127.0.0.1/32; do
    line="host all all ${cidr} trust"
    as_root sed -i "\\|^${line}\$|d" "${hba}"
    as_root sed -i "1i ${line}" "${hba}"
  done
  log "postgres: ${hba} now trusts 127.0.0.1 and ::1; reloading"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(pg_version)" main reload
  sleep 1
}

PSQL=(psql -w -h "${PG_HOST}" -p "${PG_PORT}" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)

pg_can_login() {
  "${PSQL[@]}" -c 'SELECT 1' >/dev/null 2>&1
}

ensure_database() {
  have psql || apt_install postgresql-client
  if ! pg_can_login; then
    pg_installed || die "cannot log in to postgres at ${PG_HOST}:${PG_PORT} as user postgres without a password"
    pg_trust_local
    pg_can_login || die "cannot log in to postgres at ${PG_HOST}:${PG_PORT} as user postgres without a password"
  fi
  local exists
  exists="$("${PSQL[@]}" -v name="${DB_NAME}" <<'SQL'
SELECT 1 FROM pg_database WHERE datname = :'name';
SQL
)"
  if [[ "${exists}" == "1" ]]; then
    log "postgres: database ${DB_NAME} exists"
    return
  fi
  "${PSQL[@]}" -v name="${DB_NAME}" <<'SQL'
CREATE DATABASE :"name";
SQL
  log "postgres: created database ${DB_NAME}"
}

# --------------------------------------------------------------------- Redis

redis_answers() {
  if have redis-cli; then
    [[ "$(redis-cli -h "${REDIS_HOST}" -p "${REDIS_PORT}" ping 2>/dev/null)" == "PONG" ]]
  else
    tcp_open "${REDIS_HOST}" "${REDIS_PORT}"
  fi
}

redis_start() {
  log "redis: starting redis-server"
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "${REDIS_PORT}" \
    --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
}

ensure_redis() {
  if redis_answers; then
    log "redis: running on ${REDIS_HOST}:${REDIS_PORT}"
    return
  fi
  redis_start
  wait_for "redis on ${REDIS_HOST}:${REDIS_PORT}" redis_answers
  log "redis: running on ${REDIS_HOST}:${REDIS_PORT}"
}

# install_missing installs, in one apt run, the servers that neither answer
# nor are installed.
install_missing() {
  local missing=()
  if ! pg_answers && ! pg_installed; then
    missing+=(postgresql)
  fi
  if ! redis_answers && ! have redis-server; then
    missing+=(redis-server)
  fi
  if [[ "${#missing[@]}" -gt 0 ]]; then
    apt_install "${missing[@]}"
  fi
}

# Debian packages of the realtime worker's speech-to-text: headers and
# libraries for cgo (libopus-dev, libpocketsphinx-dev pulls libsphinxbase),
# the offline English model, and the test voices.
readonly SPEECH_PACKAGES=(pkg-config libopus-dev libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us espeak-ng)

speech_installed() {
  local p
  for p in "${SPEECH_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || return 1
  done
}

ensure_speech() {
  if have dpkg-query && speech_installed; then
    log "speech: ${SPEECH_PACKAGES[*]} installed"
    return
  fi
  if ! have apt-get; then
    log "speech: no apt-get; install libopus, libpocketsphinx (+ en-us model), espeak-ng and pkg-config by hand"
    return
  fi
  apt_install "${SPEECH_PACKAGES[@]}"
}

main() {
  install_missing
  ensure_speech
  ensure_postgres
  ensure_database
  ensure_redis
  log "ready: postgres://postgres@${PG_HOST}:${PG_PORT}/${DB_NAME} redis://${REDIS_HOST}:${REDIS_PORT}/0"
}

main "$@"
