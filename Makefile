# cordon — the two commands a new user needs are `make run` and `make check`.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 10
CORDON     := $(BUILD)/src/cli/cordon

.PHONY: all deps build run check test sanitize fuzz fuzz-smoke bench clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/build.ninja:
	meson setup $(BUILD) --werror

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# A short confined session under the built-in default policy.
run: build
	@scripts/demo $(CORDON)

# Every test: unit, live and integration, the unit tests again under
# ASan+UBSan, and a short run of every fuzzer. Ends with "N passed, N failed".
check: deps
	@scripts/check

test: build
	meson test -C $(BUILD) --print-errorlogs

sanitize: deps
	@[ -f $(ASAN_BUILD)/build.ninja ] || meson setup $(ASAN_BUILD) --werror -Db_sanitize=address,undefined -Db_lundef=false
	ninja -C $(ASAN_BUILD)
	meson test -C $(ASAN_BUILD) --suite unit --print-errorlogs

fuzz-smoke: deps
	@[ -f $(FUZZ_BUILD)/build.ninja ] || CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link -Dc_link_args=-fsanitize=fuzzer-no-link
	ninja -C $(FUZZ_BUILD)
	scripts/fuzz-run $(FUZZ_BUILD) $(FUZZ_SECONDS)

# A long fuzz run (10 minutes per target).
fuzz: FUZZ_SECONDS = 600
fuzz: fuzz-smoke

bench: build
	bench/install-peers
	bench/compare --cordon $(CORDON) --doc docs/BENCHMARKS.md
	gnuplot -e "datafile='bench/out/launch.dat'; outfile='docs/bench-launch.svg'" bench/plot.gp
	bench/launch --cordon $(CORDON)
	bench/proxy --cordon $(CORDON)
	bench/elf-closure
	bench/broker --cordon $(CORDON)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
