# Sourced by the benchmark scripts: `best N CMD...` prints the best of N
# wall-clock times of CMD (stdout discarded), in microseconds.
best() {
  local n=$1; shift
  local best=
  for _ in $(seq "$n"); do
    local s e
    s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N)
    local t=$(( (e - s) / 1000 ))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  echo "$best"
}
