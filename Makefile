# The README's two commands. Both install what is missing, configure and build first.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
# CI (CI=true) turns warnings into errors; a user's build only shows them.
WERROR ?= $(if $(CI),ON,OFF)
PERFHOUND := $(BUILD_DIR)/perfhound

.PHONY: all deps configure build test demo fuzz-configure sanitize fuzz clean

all: build

deps:
	@scripts/install-deps

# Configuring every time is cheap (about a second) and never leaves a stale or half-configured tree.
configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DPERFHOUND_WERROR=$(WERROR) > $(BUILD_DIR).configure.log \
	  || { cat $(BUILD_DIR).configure.log; exit 1; }

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo $(PERFHOUND)

# One clang tree instrumented with ASan + UBSan (and libFuzzer's coverage) serves two targets: the unit tests
# run in it (make sanitize) and the libFuzzer targets, FUZZ_SECONDS each (make fuzz: scripts/run-fuzz).
# -O1 with line tables only: reports keep file:line, and the tree builds in about half the time of -O2 -g.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 30
fuzz-configure:
	@scripts/install-deps fuzz
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFHOUND_FUZZ=ON \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
	  -DPERFHOUND_CUDA=OFF -DPERFHOUND_BUILD_TESTS=ON -DPERFHOUND_BUILD_BENCH=OFF > $(FUZZ_DIR).configure.log \
	  || { cat $(FUZZ_DIR).configure.log; exit 1; }

sanitize: fuzz-configure
	cmake --build $(FUZZ_DIR) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(FUZZ_DIR) --output-on-failure -j $(JOBS)

fuzz: fuzz-configure
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_all
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/run-fuzz $(FUZZ_DIR)

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR)
