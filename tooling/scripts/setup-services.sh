#!/usr/bin/env bash
# Installs the system programs some test suites need (redis-server for the Redis rate-limit
# store, chromium for the browser tests, haproxy and prometheus for the scale-out suite of
# @fw/app, grpcio and grpcio-tools for the Python client of @fw/grpc's interop suite) from
# Debian's packages when they are missing.
# The tests start and stop their own instances; nothing is left running.
set -euo pipefail

# The interop suite runs the first of these that imports grpcio and grpcio-tools (see
# packages/grpc/test/interop/python-client.ts). Debian's packages serve /usr/bin/python3; they
# come from the registry this project installs from, at the versions of the Debian release.
python_grpc() {
  local python
  for python in python3 /usr/bin/python3; do
    "$python" -c 'import grpc, grpc_tools.protoc' >/dev/null 2>&1 && return 0
  done
  return 1
}

need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v haproxy >/dev/null 2>&1 || need+=(haproxy)
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
python_grpc || need+=(python3-grpcio python3-grpc-tools)
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
