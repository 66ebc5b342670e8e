# shellcheck shell=bash
# How llama-cpp-python is built on this CPU: sourced by setup.sh (CPU_FLAGS, when set,
# stands in for /proc/cpuinfo's flags: the tests use it).
# llama-cpp-python's default build is native (-march=native). On CPUs with AMX
# (recent Xeons) that build compiles ggml's AMX kernel, which segfaults on every
# prompt (in ggml_backend_amx_mul_mat); turning the AMX options off does not help
# while GGML_NATIVE is on. So the build names its instruction sets itself, AMX always
# off: AVX2 (every x86-64 CPU since 2013), plus AVX-512 where the CPU has its base set
# (F, CD, BW, DQ, VL), each of VNNI, VBMI and BF16 as the CPU has it. On 2 cores,
# Qwen2.5-Coder-1.5B Q4_K_M read a 2,765-token prompt at 137 tokens/s with all of them
# against AVX2's 78 (one Xeon), and a 2,711-token one at 61-63 against 40-47 with
# VNNI and VBMI but no BF16 (another); the same greedy output. Override with
# GRAPHMIND_LLAMA_CMAKE_ARGS.
LLAMA_VERSION=0.3.36
LLAMA_AVX2="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
LLAMA_NO_AMX="-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
CPU_FLAGS=${CPU_FLAGS:-" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "}
has_flag() {
  case "$CPU_FLAGS" in *" $1 "*) return 0 ;; esac
  return 1
}
llama_x86_args() {
  local args="$LLAMA_AVX2" flag pair
  for flag in avx512f avx512cd avx512bw avx512dq avx512vl; do
    has_flag "$flag" || { echo "$args -DGGML_AVX512=OFF $LLAMA_NO_AMX"; return; }
  done
  args="$args -DGGML_AVX512=ON"
  for pair in avx512_vnni:VNNI avx512vbmi:VBMI avx512_bf16:BF16; do
    if has_flag "${pair%%:*}"; then
      args="$args -DGGML_AVX512_${pair#*:}=ON"
    else
      args="$args -DGGML_AVX512_${pair#*:}=OFF"
    fi
  done
  echo "$args $LLAMA_NO_AMX"
}
LLAMA_DEFAULT_ARGS=$(llama_x86_args)
