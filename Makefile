# SPDX-License-Identifier: BSD-3-Clause
# A thin layer over meson: install what is missing, build, run the demo, test.
#
#   make demo    install, build, run the gateway on the bundled Linux FOU capture
#   make check   install, build, run every test (what CI runs), then the unit and
#                functional suites again on an ASan + UBSan build ($(ASAN_BUILD))
#   make bench   install, build, run the benchmark (bench/run; BENCH_ARGS=--quick)
#   make fuzz    install, build the libFuzzer targets with clang, run each for
#                FUZZ_SECONDS (FUZZ_RUNS=N: N executions; FUZZ_TARGETS: which)
#   make install build and install dpdk-fou, fouctl, the man pages, the systemd
#                unit and the example configuration (doc/deploying.md) under
#                PREFIX (/usr/local), the configuration under SYSCONFDIR (/etc),
#                all under DESTDIR when given; make uninstall takes them away
#                but for the configuration the operator edits

BUILD ?= build
# The same sources built with AddressSanitizer (LeakSanitizer included) and
# UBSan, any finding fatal: make check runs the unit and functional suites
# here too. b_lundef=false: the sanitizer runtimes resolve symbols at load.
ASAN_BUILD ?= build-asan
ASAN_MESON_OPTS = -Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fno-sanitize-recover=all
DEMO_OUT ?= $(BUILD)/demo
MESON_TEST_ARGS ?= --print-errorlogs

# Debian 12 packages: DPDK 22.11 (libs, PMDs, testpmd, dpdk-telemetry.py), jansson (fouctl),
# the build, the tests (cmocka, scapy, tshark), the interop test's Linux peer
# VM (QEMU, a Debian kernel with its modules, busybox, cpio, iproute2), the
# benchmark (valgrind for callgrind, matplotlib for the charts), the fuzz
# targets (clang with its libFuzzer and sanitizer runtimes), the install
# test's rendering of the man pages (groff, man), the punt test's BGP
# speakers (FRR's bgpd and vtysh).
DEB_PACKAGES = libdpdk-dev dpdk dpdk-dev libnuma-dev libpcap-dev libcmocka-dev libjansson-dev \
	meson ninja-build pkg-config gcc make python3 python3-scapy tshark \
	qemu-system-x86 linux-image-amd64 busybox-static cpio iproute2 \
	valgrind python3-matplotlib clang libclang-rt-14-dev groff-base man-db frr

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

BENCH_ARGS ?=

# The fuzz build: clang, ASan + UBSan + libFuzzer coverage on every file.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_TARGETS ?=

.PHONY: all deps build build-asan demo check check-asan test bench clean fuzz-build fuzz \
	fuzz-smoke install uninstall

all: build

# Installs only what dpkg does not already have, so a second run is offline.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) apt-get update && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) $(ASAN_MESON_OPTS)

build-asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

# The gateway's main job on an embedded default: the pcap PMD reads FOU traffic
# that a Linux 6.1 kernel sent (tests/data), dpdk-fou decapsulates and routes it
# (config/demo.conf), prints what it did, and leaves the output captures.
demo: build
	@mkdir -p $(DEMO_OUT)
	$(BUILD)/app/dpdk-fou -l 0-1 --no-huge -m 512 --no-pci --file-prefix fou-demo-$$$$ \
		--log-level=lib.eal:warning \
		--vdev net_pcap0,rx_pcap=tests/data/linux-6.1-all.pcap,tx_pcap=$(DEMO_OUT)/port0-out.pcap \
		--vdev net_pcap1,rx_pcap=tests/data/inside-replies.pcap,tx_pcap=$(DEMO_OUT)/port1-out.pcap \
		-- --config config/demo.conf --idle-exit 500
	@echo "--- port 1 output ($(DEMO_OUT)/port1-out.pcap), decoded by tshark:"
	@tshark -n -r $(DEMO_OUT)/port1-out.pcap -T fields -E header=y -e frame.number \
		-e eth.dst -e ip.src -e ip.dst -e ipv6.src -e ipv6.dst -e ip.ttl -e ipv6.hlim \
		-e _ws.col.Info 2>/dev/null
	@echo "--- port 0 output ($(DEMO_OUT)/port0-out.pcap), FOU decoded by tshark:"
	@tshark -n -r $(DEMO_OUT)/port0-out.pcap -X lua_script:tests/tshark/fou.lua -T fields \
		-E header=y -e frame.number -e udp.srcport -e udp.dstport -e udp.checksum \
		-e _ws.col.Source -e _ws.col.Destination -e _ws.col.Info 2>/dev/null

check: build fuzz-build
	meson test -C $(BUILD) $(MESON_TEST_ARGS)
	$(MAKE) check-asan
	$(MAKE) fuzz-smoke

# Every ASan/UBSan finding aborts the process (a test sees the failed exit),
# and LeakSanitizer fails the exit of a process that leaked. Not interop (a
# VM, no gateway code of its own) nor bench (timing, meaningless under ASan),
# nor the functional scripts tests/functional/meson.build leaves out of the
# suite functional-asan (covered under the sanitizers otherwise).
ASAN_ENV = ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

check-asan: build-asan
	$(ASAN_ENV) meson test -C $(ASAN_BUILD) --suite unit --suite functional-asan $(MESON_TEST_ARGS)

$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true -Dtests=false

fuzz-build: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) -j2

# doc/testing.md, "Fuzzing": each target for FUZZ_SECONDS, or FUZZ_RUNS executions.
fuzz: fuzz-build
	/usr/bin/python3 tests/fuzz/run --build $(FUZZ_BUILD) --seconds $(FUZZ_SECONDS) \
		$(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS)) $(FUZZ_TARGETS)

# What make check runs: 15 seconds of each target from its seeds.
fuzz-smoke: fuzz-build
	/usr/bin/python3 tests/fuzz/run --build $(FUZZ_BUILD) --smoke

test: check

# doc/performance.md: dpdk-fou beside dpdk-testpmd, cycles and instructions
# per packet per stage; results in $(BUILD)/bench-results. About 8 minutes;
# BENCH_ARGS=--quick about 1.
bench: build
	/usr/bin/python3 bench/run --build $(BUILD) $(BENCH_ARGS)

# Only meson: no Debian package is installed and no test is run. The
# configuration stays in /etc whatever the prefix, where systemd and
# operators look for it; the files an operator edits there are never
# replaced (config/install-conffile.sh). meson install builds what is not.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
DESTDIR ?=

install: $(BUILD)/build.ninja
	meson configure $(BUILD) -Dprefix=$(PREFIX) -Dsysconfdir=$(SYSCONFDIR)
	meson install -C $(BUILD) $(if $(DESTDIR),--destdir "$(DESTDIR)")

# What the last make install (or meson install) of $(BUILD) installed, from
# its log; SYSCONFDIR's dpdk-fou/dpdk-fou.conf and default/dpdk-fou stay.
uninstall:
	ninja -C $(BUILD) uninstall

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
