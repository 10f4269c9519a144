#!/usr/bin/env bash
# `docker compose up` for real: brings the stack of docker-compose.yml up with Compose v1 (Debian's
# docker-compose 1.29) and uses it as an operator would. On CI machines no registry image can be
# pulled, so the images the stack names are stand-ins made once from Debian packages and kept by
# tag (an image already present under that tag, real or stand-in, is used as it is):
#   node:24-slim  the app's base image: a minbase Debian bookworm root, this machine's Node 24
#                 binary and npm 11 from the npm registry (the docker stage's smoke script makes
#                 the same image under the same tag);
#   postgres:17   a minbase Debian trixie root with Debian's postgresql-17 and an entrypoint that
#                 does what the official image's does for this stack: POSTGRES_USER, _PASSWORD and
#                 _DB on the first start of an empty data directory (the volume), the data kept
#                 across restarts, listening on 5432 for the compose network, pg_isready on PATH.
# Then, as its own compose project on a free host port (VETFLOW_PORT) with DEMO_DATA=true in .env:
# up -d --build, wait for /readyz, upload a fixture with the demo clinic's key and wait for the note
# to complete; `restart app`, wait for /readyz, the same note is still there and completed, and a
# second upload completes. `down -v` on exit.
#
# usage: bash .ci/compose-up.sh   (needs root: it installs packages, starts dockerd, makes images;
#                                  and Node.js 24 first on PATH, whose binary goes into node:24-slim)
# Exit 0 when all of that passed, 3 when this machine cannot run it (the reason on the last line,
# "compose-up: cannot run here: ..."), anything else when it failed.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
say() { echo "compose-up [+$(($(date +%s) - t0))s]: $*"; }
cannot() { echo "compose-up: cannot run here: $*"; exit 3; }

[ "$(id -u)" -eq 0 ] || cannot "needs root (it installs packages, starts dockerd and makes images)"
command -v docker-compose >/dev/null || cannot "no docker-compose (the packages stage installs Debian's)"
need_pkg() { # need_pkg COMMAND PACKAGE
  command -v "$1" >/dev/null && return 0
  command -v apt-get >/dev/null || cannot "no $1 and no apt-get to install $2"
  [ -n "${apt_updated:-}" ] || { apt-get update -qq >/dev/null; apt_updated=1; }
  say "installing: apt package $2"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null
}
need_pkg dockerd docker.io
need_pkg debootstrap debootstrap
need_pkg curl curl
node24=$(command -v node || true)
[ -n "$node24" ] && [ "$("$node24" -p 'process.versions.node.split(".")[0]')" -ge 24 ] \
  || { echo "compose-up: put Node.js 24 first on PATH (its binary goes into node:24-slim)" >&2; exit 1; }

if ! docker info >/dev/null 2>&1; then
  say "starting dockerd (its log: /tmp/compose-up-dockerd.log)"
  (dockerd >/tmp/compose-up-dockerd.log 2>&1 &)
  for _ in $(seq 1 30); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || cannot "dockerd did not start (its log: /tmp/compose-up-dockerd.log)"
fi

# --- Stand-in images, made once ------------------------------------------------------------------
# Their roots are removed on exit, whatever happened.
scratch=()
trap 'rm -rf "${scratch[@]}"' EXIT

make_node_image() {
  say "making the stand-in node:24-slim (debootstrap bookworm + Node $("$node24" -v) + npm 11, ~1-2 min)"
  local dir npmdir changes
  dir=$(mktemp -d /tmp/compose-up-node.XXXXXX)
  npmdir=$(mktemp -d /tmp/compose-up-npm.XXXXXX)
  scratch+=("$dir" "$npmdir")
  debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian >/dev/null
  cp "$node24" "$dir/usr/local/bin/node"
  npm install --silent --prefix "$npmdir" npm@11 >/dev/null
  mkdir -p "$dir/usr/local/lib/node_modules" && cp -a "$npmdir/node_modules/npm" "$dir/usr/local/lib/node_modules/"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$dir/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$dir/usr/local/bin/npx"
  chroot "$dir" /bin/sh -c 'groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/sh node'
  changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["node"]')
  # The npm registry is reached through a proxy with its own CA here: the stand-in trusts it, as the
  # real image trusts the public CAs.
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    cp "$NODE_EXTRA_CA_CERTS" "$dir/usr/local/share/extra-ca.pem"
    changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca.pem')
  fi
  rm -rf "$dir/var/cache/apt/archives/"*.deb "$dir/var/lib/apt/lists/"*
  tar -C "$dir" -c . | docker import "${changes[@]}" - node:24-slim >/dev/null
  rm -rf "$dir" "$npmdir"
}

make_postgres_image() {
  say "making the stand-in postgres:17 (debootstrap trixie + postgresql-17, ~2-3 min)"
  local dir
  dir=$(mktemp -d /tmp/compose-up-postgres.XXXXXX)
  scratch+=("$dir")
  debootstrap --variant=minbase trixie "$dir" http://deb.debian.org/debian >/dev/null
  # Installed without starting anything and without Debian's default cluster: the entrypoint makes
  # the data directory, in the volume.
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d" && chmod +x "$dir/usr/sbin/policy-rc.d"
  mkdir -p "$dir/etc/postgresql-common/createcluster.d"
  echo 'create_main_cluster = false' >"$dir/etc/postgresql-common/createcluster.d/stand-in.conf"
  chroot "$dir" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-17' \
    >/dev/null 2>&1
  [ -x "$dir/usr/lib/postgresql/17/bin/postgres" ] || { echo "compose-up: postgresql-17 did not install" >&2; return 1; }
  rm -f "$dir/usr/sbin/policy-rc.d"
  cat >"$dir/usr/local/bin/docker-entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
# Stand-in for the official postgres image's entrypoint (what vetflow's docker-compose.yml uses):
# initialises $PGDATA on the first start of an empty one with POSTGRES_USER (superuser, default
# postgres), POSTGRES_PASSWORD (required) and POSTGRES_DB (default: the user); a data directory
# that has a cluster is started as it is. Runs postgres as the postgres user, on every address.
set -eu
export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
[ "${1#-}" = "$1" ] || set -- postgres "$@"
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /run/postgresql
  chown postgres:postgres "$PGDATA" /run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "POSTGRES_PASSWORD is required on the first start" >&2; exit 1; }
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 -q -U "$user" -d postgres -c "CREATE DATABASE \"$db\""
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "stand-in postgres: initialised $PGDATA (superuser $user, database $db)"
fi
exec "$@"
ENTRYPOINT
  chmod +x "$dir/usr/local/bin/docker-entrypoint.sh"
  rm -rf "$dir/var/cache/apt/archives/"*.deb "$dir/var/lib/apt/lists/"* "$dir/usr/share/doc" "$dir/usr/share/man"
  local rootfs
  rootfs=$(tar -C "$dir" -c . | docker import \
    --change 'ENV PATH=/usr/lib/postgresql/17/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV PGDATA=/var/lib/postgresql/data' \
    --change 'VOLUME /var/lib/postgresql/data' \
    --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
    --change 'CMD ["postgres"]' \
    --change 'EXPOSE 5432' \
    -)
  # SIGINT is postgres's fast shutdown, as in the official image (SIGTERM would wait for every
  # client to leave); `docker import` cannot set a stop signal, a one-line build can.
  printf 'FROM %s\nSTOPSIGNAL SIGINT\n' "$rootfs" | docker build -q -t postgres:17 - >/dev/null 2>&1
  rm -rf "$dir"
}

docker image inspect node:24-slim >/dev/null 2>&1 || make_node_image
docker image inspect postgres:17 >/dev/null 2>&1 || make_postgres_image
say "images: node:24-slim $(docker image inspect -f '{{.Id}}' node:24-slim | cut -c8-19), postgres:17 $(docker image inspect -f '{{.Id}}' postgres:17 | cut -c8-19)"

# --- The stack -----------------------------------------------------------------------------------
project=vetflowci$$
dir=$(mktemp -d /tmp/compose-up.XXXXXX)
node .ci/compose-v1.mjs "$dir"
# Settings reach the app through .env beside the compose file, as an operator's do.
echo 'DEMO_DATA=true' >>"$dir/.env"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
base="http://127.0.0.1:$port"
compose() { (cd "$dir" && VETFLOW_PORT=$port docker-compose -p "$project" "$@"); }
# Compose tags the app's image by project (${project}_app). It is kept as vetflow-compose-up:cache
# (replacing the previous run's) so that the next build finds its layers (npm ci) in the cache.
keep_build_cache() {
  local image="${project}_app" cache=vetflow-compose-up:cache old
  docker image inspect "$image" >/dev/null 2>&1 || return 0
  old=$(docker image inspect -f '{{.Id}}' "$cache" 2>/dev/null || true)
  docker tag "$image" "$cache" && docker rmi "$image" >/dev/null
  if [ -n "$old" ] && [ "$old" != "$(docker image inspect -f '{{.Id}}' "$cache")" ]; then docker rmi "$old" >/dev/null 2>&1 || true; fi
}
finish() {
  local code=$?
  if [ "$code" -ne 0 ]; then
    echo "--- compose ps and logs (the run failed) ---"
    compose ps || true
    compose logs --no-color --tail 40 || true
  fi
  compose down -v --remove-orphans >/dev/null 2>&1 || true
  keep_build_cache || true
  rm -rf "$dir" "${scratch[@]}"
  exit "$code"
}
trap finish EXIT

say "docker-compose up -d --build (project $project, VETFLOW_PORT=$port)"
if ! compose up -d --build >"$dir/up.log" 2>&1; then
  cat "$dir/up.log"
  echo "compose-up: docker-compose up failed" >&2
  exit 1
fi
# The build's steps and npm's notices are noise once it worked; what compose did with the services
# is not.
sed 's/\x1b\[[0-9;]*m//g' "$dir/up.log" \
  | grep -vE '^(Step [0-9]|  ---> | ---> |Removing intermediate|Successfully|Sending build context|npm notice|\s*$)' \
  | grep -vE 'legacy builder is deprecated|Install the buildx component|docs.docker.com/go/buildx' || true
compose ps

ready() { # ready SECONDS
  for _ in $(seq 1 "$1"); do
    curl -fsS "$base/readyz" >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "compose-up: $base/readyz did not answer 200 within $1 s" >&2
  return 1
}
# Migrations run at the first start: a loaded machine is given two minutes.
ready 120
say "ready at $base/readyz"

# The demo clinic's key: the app writes its first-run credentials to DATA_DIR when stdout is not a
# terminal (never to the log).
key=$(compose exec -T app sh -c 'cat /data/first-run-credentials.txt 2>/dev/null' | grep -oE 'vnk_[0-9a-f]{32}' | head -n 1 || true)
[ -n "$key" ] || { echo "compose-up: no demo key in /data/first-run-credentials.txt with DEMO_DATA=true" >&2; exit 1; }

json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=process.argv[1].split(".").reduce((o,k)=>o?.[k],JSON.parse(s));console.log(v??"")})' "$1"; }
audio=test/fixtures/audio/consultation.mp3
upload() {
  curl -fsS -H "X-API-KEY: $key" -F "audio=@$audio" -F "metadata={\"name\":\"$1\"}" "$base/notes/v1/notes" | json data.id
}
completed() { # completed NOTE_ID: waits up to 90 s
  local status=
  for _ in $(seq 1 90); do
    status=$(curl -fsS -H "X-API-KEY: $key" "$base/notes/v1/notes/$1/status" | json status)
    case $status in completed) return 0 ;; failed) break ;; esac
    sleep 1
  done
  echo "compose-up: note $1 ended $status" >&2
  return 1
}

first=$(upload "Compose up")
completed "$first"
say "note $first completed ($(basename "$audio"))"

say "docker-compose restart app"
compose restart app
ready 60
note=$(curl -fsS -H "X-API-KEY: $key" "$base/notes/v1/notes/$first")
status=$(json data.transcription_status <<<"$note")
sections=$(json data.note_sections.length <<<"$note")
[ "$status" = completed ] && [ "${sections:-0}" -gt 0 ] \
  || { echo "compose-up: after the restart, note $first is '$status' with '$sections' sections" >&2; exit 1; }
say "after the restart: ready; note $first is still there, completed, with $sections sections"
second=$(upload "Compose up, after the restart")
completed "$second"
say "note $second completed after the restart"

# The image's own HEALTHCHECK (every 10 s) agrees.
app=$(compose ps -q app)
health=
for _ in $(seq 1 45); do
  health=$(docker inspect --format '{{.State.Health.Status}}' "$app")
  [ "$health" = starting ] || break
  sleep 1
done
[ "$health" = healthy ] || { echo "compose-up: the app container's health is '$health'" >&2; exit 1; }
say "ok: the stack came up, completed notes and kept them across an app restart (app container: healthy)"
