#!/usr/bin/env bash
# Installs reval, and the reference plugins asked for, from the checkout of the action's
# own ref: the job measures the code of the ref it names, with no package index involved.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
spec="$ROOT"
if [ -n "${INPUT_EXTRAS:-}" ]; then
  spec="$ROOT[${INPUT_EXTRAS// /}]"
fi
args=("$spec")
for plugin in ${INPUT_PLUGINS//,/ }; do
  if [ ! -d "$ROOT/plugins/$plugin" ]; then
    echo "::error::no reference plugin '$plugin' (known: $(ls "$ROOT/plugins" | tr '\n' ' '))"
    exit 2
  fi
  args+=("$ROOT/plugins/$plugin")
done
if [ -n "${REVAL_INSTALL_DRY_RUN:-}" ]; then
  echo "pip install ${args[*]}"
  exit 0
fi
python -m pip install --disable-pip-version-check "${args[@]}"
reval --version
