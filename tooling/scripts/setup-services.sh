#!/usr/bin/env bash
# Installs the system programs some test suites need (redis-server for the Redis rate-limit
# store, chromium for the browser tests, haproxy and prometheus for the scale-out suite of
# @fw/app) from Debian's packages when they are missing.
# The tests start and stop their own instances; nothing is left running.
set -euo pipefail

need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v haproxy >/dev/null 2>&1 || need+=(haproxy)
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
[ ${#need[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-services: missing ${need[*]} and no apt-get here; the tests that need them will fail" >&2
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "setup-services: missing ${need[*]}; run as root or install them" >&2
    exit 0
  fi
fi
echo "setup-services: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# The Debian packages of redis-server, haproxy and prometheus start a system instance; the tests
# start their own (on free loopback ports, with configurations written per run).
for service in redis-server haproxy prometheus; do
  if [[ " ${need[*]} " == *" $service "* ]]; then
    ($sudo service "$service" stop || $sudo systemctl stop "$service" || true) >/dev/null 2>&1
  fi
done
