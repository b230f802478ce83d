#!/usr/bin/env bash
# Slurm and MUNGE from Debian (slurm-wlm 22.05, munge) for the Slurm tests (test/real/slurm.test.ts),
# which start their own one-node cluster from these binaries in a temporary folder
# (test/helpers/slurm.ts; ../shared/notes/real-clusters.md). Installs only; starts no daemon.
# Idempotent: skipped when the daemons and clients are already there. Without root or without
# apt-get it installs nothing and says so: the Slurm tests then say they are skipped on a user's
# clone, and fail under CI.
set -euo pipefail

packages=(slurm-wlm munge)
commands=(slurmctld slurmd srun sbatch scontrol munged munge)

missing_commands() {
  local missing=()
  for cmd in "${commands[@]}"; do
    command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || missing+=("$cmd")
  done
  echo "${missing[*]}"
}

# (srun --version needs a slurm.conf to answer: ask dpkg, or say what answers.)
installed_versions() {
  dpkg-query -W -f '${Package} ${Version}, ' "${packages[@]}" 2>/dev/null | sed 's/, $//' || echo "commands on PATH"
}

if [ -z "$(missing_commands)" ]; then
  echo "slurm: already installed ($(installed_versions))"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "slurm.sh: not root, cannot install ${packages[*]}: the Slurm tests will be skipped (under CI they fail). Run this part as root or with sudo to add them."
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "slurm.sh: no apt-get here, cannot install ${packages[*]}: the Slurm tests will be skipped (under CI they fail). Install Slurm and MUNGE with this system's package manager."
  exit 0
fi

echo "slurm: installing Debian's ${packages[*]} (under a minute)"
started=$SECONDS
log="$(mktemp)"
# No recommends: the daemons need no mail server, docs or systemd units here.
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"; } >"$log" 2>&1; then
  tail -20 "$log" >&2
  echo "slurm.sh: apt-get could not install ${packages[*]} (above: the end of its output)" >&2
  exit 1
fi
rm -f "$log"
still_missing="$(missing_commands)"
if [ -n "$still_missing" ]; then
  echo "slurm.sh: installed ${packages[*]} but $still_missing is still missing" >&2
  exit 1
fi
echo "slurm: installed $(installed_versions) in $((SECONDS - started)) s"
