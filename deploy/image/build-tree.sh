#!/usr/bin/env bash
# Builds the production tree of the `ipsets` command into DIR: the built CLI, the
# workspace packages it imports and their runtime dependencies at the versions in
# pnpm-lock.yaml (no devDependencies, no sources, no tests). The tree is
# self-contained (its node_modules links point inside it), so it can be copied
# anywhere: the image copies it to /opt/ipsets, a host install to any folder.
#
#   deploy/image/build-tree.sh DIR
#
# Needs a supported Node (22, 24 or 26) and pnpm 12.4.2 on PATH (`npm run build` and
# `npm test` put the pinned ones there). Set IPSETS_SKIP_INSTALL=1 when the
# workspace is already installed (a CI run that built it a moment ago).
set -euo pipefail

if [ "$#" -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR   (DIR must not exist or be empty)" >&2
  exit 2
fi
out="$1"
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "$0: $out is not empty; expected a new or empty folder for the production tree" >&2
  exit 2
fi
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac

repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

if [ "${IPSETS_SKIP_INSTALL:-}" != 1 ]; then
  pnpm install --frozen-lockfile
fi
# The CLI and every workspace package it depends on, with type declarations.
pnpm exec turbo run build --filter=@ipsets/cli... --output-logs=errors-only

# `deploy` copies (injects) the workspace packages instead of linking them, so the
# tree does not point back into this checkout.
pnpm --filter @ipsets/cli deploy --prod "$out"
# The deploy's workspace file names this checkout's build settings only; the lock
# file stays as the record of the exact third-party versions in the tree.
rm -f "$out/pnpm-workspace.yaml"

# `--version`'s first line is `ipsets X.Y.Z` (the second names the ipset it finds).
version="$(node "$out/dist/bin.js" --version | head -n 1)"
echo "production tree of $version in $out"
