#!/bin/sh
# The container's entry point (Containerfile). `serve` (the default command) first applies the
# configuration file PIER_CONFIG_FILE names, when it names one, as `pier config apply` does; then
# pier replaces this shell, so it is the process the container's stop signal reaches. Any other
# command runs as `pier <command>`: `podman run … pier users list`.
set -eu
if [ "${1:-serve}" = serve ] && [ -n "${PIER_CONFIG_FILE:-}" ]; then
  pier migrate
  pier config apply "$PIER_CONFIG_FILE"
fi
exec pier "$@"
