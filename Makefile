# The README's two commands. Both install what is missing, configure and build first.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
# CI (CI=true) turns warnings into errors; a user's build only shows them.
WERROR ?= $(if $(CI),ON,OFF)
PERFHOUND := $(BUILD_DIR)/perfhound

.PHONY: all deps configure build test demo fuzz clean

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

# libFuzzer targets under ASan + UBSan (clang), FUZZ_SECONDS each: scripts/run-fuzz.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 30
fuzz:
	@scripts/install-deps fuzz
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFHOUND_FUZZ=ON \
	  -DPERFHOUND_CUDA=OFF -DPERFHOUND_BUILD_TESTS=OFF -DPERFHOUND_BUILD_BENCH=OFF > $(FUZZ_DIR).configure.log \
	  || { cat $(FUZZ_DIR).configure.log; exit 1; }
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_all
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/run-fuzz $(FUZZ_DIR)

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR)
