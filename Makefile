# The README's two commands. Both install what is missing, configure and build first.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
# CI (CI=true) turns warnings into errors; a user's build only shows them.
WERROR ?= $(if $(CI),ON,OFF)
PERFHOUND := $(BUILD_DIR)/perfhound

.PHONY: all deps configure build test demo clean

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

clean:
	rm -rf $(BUILD_DIR)
