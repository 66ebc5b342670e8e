# Verified downloads for scripts/setup.sh (sourced): nothing downloaded or cached is
# installed unless its sha256 is the one recorded.
#
#   verified_install FILE     each NAME==VERSION --hash=sha256:HASH line of FILE (see
#                             scripts/verified-requirements.txt), installed with pip's
#                             --require-hashes --no-deps; a line already installed from
#                             that very hash (a marker in $VERIFIED_MARKERS) is skipped
#   record_wheels DIR         write DIR/SHA256SUMS: the hash of each wheel just built there
#   check_wheels DIR          succeed only when DIR's wheels are exactly those recorded,
#                             each with its recorded hash
#
# PYTHON (default .venv/bin/python) runs pip; VERIFIED_MARKERS defaults to .venv/.verified.

verified_install() {
  local file=$1 line name markers req
  markers=${VERIFIED_MARKERS:-.venv/.verified}
  mkdir -p "$markers"
  req=$(mktemp)
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    line=$(printf '%s' "$line" | tr -s ' \t' ' ' | sed 's/^ //; s/ $//')
    [ -n "$line" ] || continue
    case "$line" in
      *==*" --hash=sha256:"*) ;;
      *) echo "$file: not NAME==VERSION --hash=sha256:HASH: $line" >&2; rm -f "$req"; return 1 ;;
    esac
    name=${line%%==*}
    if [ -f "$markers/$name" ] && [ "$(cat "$markers/$name")" = "$line" ]; then continue; fi
    printf '%s\n' "$line" > "$req"
    if ! "${PYTHON:-.venv/bin/python}" -m pip install --quiet --disable-pip-version-check \
      --require-hashes --no-deps --force-reinstall -r "$req"; then
      echo "refused $name: its download does not match the sha256 recorded in $file" >&2
      rm -f "$req"
      return 1
    fi
    printf '%s\n' "$line" > "$markers/$name"
  done < "$file"
  rm -f "$req"
}

record_wheels() {
  (cd "$1" && sha256sum -- *.whl > SHA256SUMS)
}

check_wheels() {
  local dir=$1 listed present
  if [ ! -f "$dir/SHA256SUMS" ]; then
    echo "$dir holds no record of the wheels built there (SHA256SUMS)" >&2
    return 1
  fi
  listed=$(awk '{print $2}' "$dir/SHA256SUMS" | sort)
  present=$(cd "$dir" && ls -- *.whl 2>/dev/null | sort)
  if [ "$listed" != "$present" ] || ! (cd "$dir" && sha256sum --quiet --strict -c SHA256SUMS >/dev/null 2>&1); then
    echo "the cached wheel in $dir does not match the sha256 recorded when it was built" >&2
    return 1
  fi
}
